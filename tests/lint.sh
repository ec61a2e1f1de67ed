#!/usr/bin/env bash
# make lint: every C file formatted as .clang-format says, clang-tidy
# (.clang-tidy: bugprone, the static analyzer, performance, portability)
# clean over every module's sources, with the build's compile commands, no
# two files of a module calling each other in a circle (tests/lint_calls.py,
# over the build's object files), and every module described in
# docs/design.md. The modules are the build's
# (PMRAG_MODULES in CMakeLists.txt, written to BUILD_DIR/modules.txt).
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
for f in compile_commands.json modules.txt; do
  [[ -f $build/$f ]] || { echo "lint: no $build/$f: build first" >&2; exit 2; }
done
mapfile -t modules <"$build/modules.txt"
modules_re=$(IFS='|' && echo "${modules[*]}")

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
  grep -E "^($modules_re)/[a-z_]+\.c\$")
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

python3 tests/lint_calls.py "$build" "${modules[@]}" || status=1

# The design document keeps up with the modules: a section (### NAME/) and
# a place in the floors it draws for each, and no section of a module that
# is gone.
design=docs/design.md
floors=$(awk '/^## Modules/ { m = 1 } m && /^```/ { if (f) exit; f = 1; next } f' "$design")
undocumented=()
for m in "${modules[@]}"; do
  if ! grep -qx "### $m/" "$design" || ! grep -qE "(^|[^a-z_])$m/" <<<"$floors"; then
    undocumented+=("$m/")
  fi
done
mapfile -t stale < <(sed -n 's|^### \([a-z_]*\)/$|\1|p' "$design" | grep -vxE "$modules_re" || true)
for m in "${undocumented[@]}"; do
  echo "lint: $design: module $m has no section (### $m) or no place in the floors" >&2
  status=1
done
for m in "${stale[@]}"; do
  echo "lint: $design: a section for $m/, which is no module of CMakeLists.txt" >&2
  status=1
done
echo "lint: modules: ${#modules[@]}, $((${#modules[@]} - ${#undocumented[@]})) described in $design"
exit $status
