#!/usr/bin/env bash
# Runs the libFuzzer targets of a fuzz build (`make fuzz`; ctest label fuzz).
#
#   tests/fuzz/run.sh BUILD SECONDS JOBS [TARGET...]
#
# Each target (all of them when none is named) fuzzes for SECONDS on a copy
# of its seed corpus (tests/fuzz/corpus/TARGET: the committed seeds never
# grow) with its dictionary, JOBS targets at a time, in BUILD/fuzz-work/
# TARGET (log, final corpus, and crash-*, leak-*, timeout-* or oom-*
# reproducers: run the target binary on one to replay it). Then a table:
# wall and CPU seconds, executions, coverage and crashes per target; for a
# target that failed, its reproducer and the start of its report. Exits 1
# when any target found a crash, a leak, a timeout or ran out of memory.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 3 ]; then
    echo "usage: $0 BUILD SECONDS JOBS [TARGET...]" >&2
    exit 2
fi
build="$(cd "$1" && pwd)" || exit 2
seconds="$2"
jobs="$3"
shift 3
all=(fuzz_otlp_pb_traces fuzz_otlp_pb_logs fuzz_otlp_json fuzz_event_json fuzz_gunzip fuzz_csv
     fuzz_xes fuzz_file_auto fuzz_config fuzz_overrides fuzz_graph fuzz_http fuzz_model fuzz_edges
     fuzz_case_value fuzz_llm_reply fuzz_grpc fuzz_error_text)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# Dictionaries (tests/fuzz/dict) per target; several are concatenated.
dicts_of() {
    case "$1" in
    fuzz_otlp_json) echo otlp_json ;;
    fuzz_event_json) echo event_json ;;
    fuzz_csv) echo csv ;;
    fuzz_xes) echo xes ;;
    fuzz_file_auto) echo event_json otlp_json csv xes ;;
    fuzz_config) echo config ;;
    fuzz_overrides) echo overrides ;;
    fuzz_http) echo http otlp_json ;;
    fuzz_edges) echo edges ;;
    fuzz_llm_reply) echo llm_reply ;;
    esac
}

# Sanitizer reports must stop the run; leaks count (libFuzzer checks for
# them after each input that allocated more than it freed).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

run_one() {
    local t="$1" work="$build/fuzz-work/$1"
    local bin="$build/tests/fuzz/$t"
    rm -rf "$work"
    mkdir -p "$work/corpus"
    if [ -d "$here/corpus/$t" ]; then
        cp -r "$here/corpus/$t/." "$work/corpus/"
    fi
    local args=(-max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1
                -artifact_prefix="$work/")
    local d
    for d in $(dicts_of "$t"); do
        cat "$here/dict/$d.dict" >> "$work/dict"
    done
    [ -f "$work/dict" ] && args+=(-dict="$work/dict")
    if [ ! -x "$bin" ]; then
        echo "$bin: not built (cmake -DPMRAG_FUZZ=ON, target fuzz_targets)" > "$work/log"
        echo 127 > "$work/rc"
        echo "0 0 0" > "$work/time"
        return
    fi
    (
        cd "$work" || exit 1
        TIMEFORMAT='%R %U %S'
        { time "$bin" "${args[@]}" "$work/corpus" > "$work/log" 2>&1; echo $? > "$work/rc"; } \
            2> "$work/time"
    )
}

echo "fuzz: ${#targets[@]} targets, ${seconds} s each, $jobs at a time (logs in $build/fuzz-work)"
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n
    done
    run_one "$t" &
done
wait

printf '\n%-22s %8s %8s %12s %9s %6s %7s %8s\n' target seconds cpu_s executions exec/s cov corpus crashes
failed=0
passed=0
reports=""
for t in "${targets[@]}"; do
    work="$build/fuzz-work/$t"
    log="$work/log"
    rc="$(cat "$work/rc" 2>/dev/null || echo 1)"
    read -r wall user sys < "$work/time" 2>/dev/null || { wall=0; user=0; sys=0; }
    cpu="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')"
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    [ -n "$execs" ] || execs="$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
    cov="$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)"
    ncorpus="$(find "$work/corpus" -type f 2>/dev/null | wc -l)"
    artifacts="$(find "$work" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
        -o -name 'timeout-*' -o -name 'oom-*' \) | sort)"
    crashes="$(printf '%s' "$artifacts" | grep -c . || true)"
    if [ "$rc" != 0 ] && [ "$crashes" = 0 ]; then
        crashes=1
    fi
    printf '%-22s %8.0f %8s %12s %9s %6s %7s %8s\n' "$t" "$wall" "$cpu" "${execs:-0}" \
        "${rate:--}" "${cov:--}" "$ncorpus" "$crashes"
    if [ "$crashes" != 0 ]; then
        failed=$((failed + 1))
        reports+=$'\n'"== $t (exit $rc): ${artifacts:-no reproducer written}"$'\n'
        reports+="$(grep -n -m 1 -A 40 -E '^==[0-9]+==ERROR|FUZZ_CHECK|runtime error|ERROR: libFuzzer' \
            "$log" | cut -c 1-200)"$'\n'
    else
        passed=$((passed + 1))
    fi
done
if [ -n "$reports" ]; then
    printf '%s' "$reports"
    echo "replay: BINARY REPRODUCER (binaries in $build/tests/fuzz)"
fi
echo "fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ]
