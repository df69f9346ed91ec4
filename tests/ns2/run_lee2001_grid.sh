#!/bin/sh
# Run the lee2001 grid through ns-2.35 and write lee2001_reference.csv.
#
#   C  in 1 2 4 8 16 32 Mb/s, W* = 20*C packets (lee2001 Table 1),
#   B  in W*/4, W*/2, 3W*/4, W*,
#   variants: reno, newreno (hoe=1), newreno (hoe=0), sack, tahoe, vegas.
#
# usage: tests/ns2/run_lee2001_grid.sh [output.csv]   (needs `ns` on PATH)
# Set JOBS=n to change the number of parallel ns processes (default 4).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/lee2001_reference.csv}
jobs=${JOBS:-4}
command -v ns >/dev/null 2>&1 || { echo "ns (ns-2.35) not found on PATH" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# one line per run: variant hoe C B
for C in 1 2 4 8 16 32; do
    W=$((20 * C))
    for B in $((W / 4)) $((W / 2)) $((3 * W / 4)) $W; do
        for vh in "reno 0" "newreno 1" "newreno 0" "sack 0" "tahoe 0" "vegas 0"; do
            set -- $vh
            echo "$1 $2 $C $B"
        done
    done
done > "$tmp/grid"

# run in parallel; each run writes its own file so output order does not matter
i=0
while read -r v h C B; do
    i=$((i + 1))
    echo "$i $v $h $C $B"
done < "$tmp/grid" > "$tmp/jobs"

xargs -P "$jobs" -L 1 sh -c '
    n=$0; v=$1; h=$2; C=$3; B=$4
    line=$(cd "'"$tmp"'" && ns "'"$here"'/lee2001.tcl" "$C" "$B" "$v" "$h" | grep "^result ")
    set -- $line
    # result variant C B completion retransmits timeouts drops segments
    echo "$v,$h,$C,$B,$5,$6,$7,$8,$9" > "'"$tmp"'/r.$n"
' < "$tmp/jobs"

{
    echo "variant,hoe,capacity_mbps,buffer_pkts,completion_s,retransmits,timeouts,drops,segments_sent"
    n=$(wc -l < "$tmp/grid")
    k=1
    while [ "$k" -le "$n" ]; do
        cat "$tmp/r.$k"
        k=$((k + 1))
    done
} > "$out"
echo "wrote $out ($(($(wc -l < "$out") - 1)) runs)"
