#!/bin/sh
# Regenerate tests/ns2/out/drops_*.txt with ns-2.35 (see README.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/out"
cd /tmp
for w in 100000 20; do
    suffix=""; [ "$w" = 20 ] && suffix="_w20"
    for v in reno newreno sack tahoe; do
        for d in "40" "40 42"; do
            n=$(echo "$d" | tr ' ' '_')
            ns "$here/drops.tcl" "$v" "$d" 0 hdr "$w" > "$here/out/drops_${v}_${n}${suffix}.txt"
        done
    done
done
ls "$here/out"
