#!/usr/bin/env bash
# make lint: every C file formatted as .clang-format says, and clang-tidy
# (.clang-tidy: bugprone, the static analyzer, performance, portability)
# clean over every module's sources, with the build's compile commands.
#
#   tests/lint.sh BUILD_DIR [JOBS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: lint.sh BUILD_DIR [JOBS]}
jobs=${2:-2}
cd "$top"
for tool in clang-format clang-tidy run-clang-tidy; do
  command -v "$tool" >/dev/null || { echo "lint: $tool is missing (make deps installs it)" >&2; exit 2; }
done
[[ -f $build/compile_commands.json ]] || { echo "lint: no $build/compile_commands.json: build first" >&2; exit 2; }

status=0
mapfile -t all < <(git ls-files '*.c' '*.h' | grep -v '^tests/fixtures/')
unformatted=()
for f in "${all[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if ((${#unformatted[@]})); then
  printf 'lint: not clang-formatted (clang-format -i FILE): %s\n' "${unformatted[@]}" >&2
  status=1
fi
echo "lint: clang-format: ${#all[@]} files, ${#unformatted[@]} to format"

# The modules' sources (tests and fuzz targets are checked by the sanitizers
# and the fuzzers instead).
mapfile -t srcs < <(printf '%s\n' "${all[@]}" |
  grep -E '^(core|graph|ingest|sessions|sink|ppr|map|model|eval|config|serve|bench|cmd)/[a-z_]+\.c$')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# run-clang-tidy (LLVM 14) always passes --use-color, which puts escape
# sequences between "file:line:col: " and "error:"; strip them before
# counting, or every finding goes uncounted.
if ! run-clang-tidy -p "$build" -j "$jobs" -quiet "${srcs[@]/#/$top/}" 2>&1 |
  sed 's/\x1b\[[0-9;]*m//g' >"$out"; then
  status=1
fi
findings=$(grep -c ': \(warning\|error\): ' "$out" || true)
if ((findings)); then
  grep -A3 ': \(warning\|error\): ' "$out" >&2
  status=1
fi
echo "lint: clang-tidy: ${#srcs[@]} files, $findings findings"
exit $status
