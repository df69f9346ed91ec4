#!/usr/bin/env bash
# Fuzzes the scenario parser and the TCP state machines, each for a bounded time.
#
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]      (default: 60 s; every target)
#
# Targets: scenario (the TOML/JSON parser on arbitrary text), scenario_fields (documents
# shaped like scenarios with hostile values, reaching every field's checks; for both, valid
# scenarios must round-trip and small ones are run with every invariant audited), receiver,
# sender (arbitrary segment / ACK sequences) and connection
# (both ends over a channel that drops, duplicates and reorders, then turns perfect: the
# transfer must complete).
#
# cargo-fuzz needs nightly features: RUSTC_BOOTSTRAP=1 lets the stable toolchain provide
# them. The targets are built without a sanitizer (the engine has no unsafe code; panics,
# overflow checks and debug assertions are what find bugs) and with debug assertions on.
# Inputs that crashed once live in regressions/<target>/ and are replayed first; the
# working corpus (corpus/, not in git) starts from seeds/<target>/ and is minimised after
# each run so it stays small.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(scenario scenario_fields receiver sender connection)
fi

export RUSTC_BOOTSTRAP=1
if ! command -v cargo-fuzz >/dev/null; then
    cargo install cargo-fuzz --locked
fi
flags=(--sanitizer none --debug-assertions)
cargo fuzz build "${flags[@]}"

status=0
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target" "artifacts/$target"
    for input in regressions/"$target"/*; do
        [ -f "$input" ] || continue
        echo "--- $target: replaying $input"
        cargo fuzz run "${flags[@]}" "$target" "$input" -- -runs=1 >/dev/null 2>&1 \
            || { echo "FAILED: $input"; status=1; }
    done
    extra=()
    [ -d "seeds/$target" ] && extra+=("seeds/$target")
    dict=()
    [ -f "$target.dict" ] && dict+=("-dict=$target.dict")
    echo "--- $target: fuzzing for ${seconds}s"
    if ! cargo fuzz run "${flags[@]}" "$target" "corpus/$target" "${extra[@]}" -- \
        -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=4096 \
        -print_final_stats=1 "${dict[@]}" 2>&1 | tail -n 25; then
        status=1
    fi
    cargo fuzz cmin "${flags[@]}" "$target" "corpus/$target" >/dev/null 2>&1 || true
    echo "--- $target: $(ls "corpus/$target" | wc -l) inputs in the corpus"
done
exit $status
