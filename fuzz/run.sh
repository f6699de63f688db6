#!/usr/bin/env bash
# Runs every fuzz target for a set time and prints, per target, executions, speed and crashes.
#
#   fuzz/run.sh SECONDS [PYTHON]
#
# The Rust targets run through cargo-fuzz; libFuzzer's sanitizer instrumentation is off (the core is
# safe Rust, and without it the targets run about twice as fast); set FUZZ_SANITIZER=address to turn
# it on. cargo-fuzz needs nightly features: RUSTC_BOOTSTRAP=1 lets the stable toolchain build them.
# The corpora grow in fuzz/corpus/, crashes land in fuzz/artifacts/; both are ignored by git. Every
# crash input belongs in tests/core_regressions.rs once understood. Exits 1 when a target crashed.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
python=${2:-.venv/bin/python}
sanitizer=${FUZZ_SANITIZER:-none}
suite=../shared/JSONTestSuite/test_parsing
logs=fuzz/target/logs
mkdir -p "$logs"
summary=()
crashed=0

# A stat of libFuzzer's final report (-print_final_stats=1), or "?" when the run ended without one.
stat() { grep -m1 "stat::$1:" "$2" | awk '{print $2}' || true; }

count_crashes() { find "$1" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) 2>/dev/null | wc -l; }

for target in split_equivalence status_consistency; do
    corpus=fuzz/corpus/$target
    artifacts=fuzz/artifacts/$target
    mkdir -p "$corpus" "$artifacts"
    before=$(count_crashes "$artifacts")
    seeds=()
    # The conformance files seed an empty corpus with real JSON; libFuzzer only reads them.
    if [ -d "$suite" ] && [ -z "$(ls -A "$corpus")" ]; then seeds=("$suite"); fi
    echo "== $target: $seconds s"
    RUSTC_BOOTSTRAP=1 cargo fuzz run --fuzz-dir fuzz -O -s "$sanitizer" "$target" "$corpus" "${seeds[@]}" -- \
        -max_total_time="$seconds" -max_len=4096 -dict=fuzz/json.dict -print_final_stats=1 \
        >"$logs/$target.log" 2>&1
    new=$(( $(count_crashes "$artifacts") - before ))
    if [ "$new" -gt 0 ]; then crashed=1; grep -m3 -A3 "panicked at" "$logs/$target.log"; fi
    summary+=("$(printf '%-22s %12s executions %8s exec/s %3d new crashes  (log: %s)' "$target" \
        "$(stat number_of_executed_units "$logs/$target.log")" "$(stat average_exec_per_sec "$logs/$target.log")" \
        "$new" "$logs/$target.log")")
done

corpus=fuzz/corpus/python
artifacts=fuzz/artifacts/python
mkdir -p "$corpus" "$artifacts"
before=$(count_crashes "$artifacts")
seeds=()
if [ -d "$suite" ] && [ -z "$(ls -A "$corpus")" ]; then seeds=("$suite"); fi
echo "== python_differential: $seconds s"
"$python" fuzz/python_differential.py -max_total_time="$seconds" -max_len=1024 -dict=fuzz/json.dict \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "${seeds[@]}" >"$logs/python.log" 2>&1
new=$(( $(count_crashes "$artifacts") - before ))
if [ "$new" -gt 0 ]; then crashed=1; grep -m1 -B2 -A12 "Traceback" "$logs/python.log"; fi
summary+=("$(printf '%-22s %12s executions %8s exec/s %3d new crashes  (log: %s)' python_differential \
    "$(stat number_of_executed_units "$logs/python.log")" "$(stat average_exec_per_sec "$logs/python.log")" \
    "$new" "$logs/python.log")")

echo
printf '%s\n' "${summary[@]}"
exit "$crashed"
