# Pinned npm and PyPI packages installed into a directory under .deps,
# again only when the pins changed. Sourced by tests/bench/logs/run.sh (the
# corpus of real codebases) and tests/idioms/run.sh (the logging idioms);
# the sourcing script defines `say MESSAGE`, which prints a message the way
# that script prints its own.
#
#   npm_setup SRC DST NAME   npm ci of SRC's package-lock.json into DST
#   pip_setup SRC DST NAME   SRC's requirements.txt into DST/site-packages
#
# NAME starts every message. Both return 1 after saying why when the
# install fails, and leave DST as the previous complete install or
# without one.

# npm_setup SRC DST NAME: `npm ci --ignore-scripts` of SRC's package.json
# and package-lock.json (exact versions, integrity hashes) into DST, again
# only when the lock changed.
npm_setup() {
  local src=$1 dst=$2 name=$3
  mkdir -p "$dst"
  if [[ -d $dst/node_modules ]] && cmp -s "$src/package-lock.json" "$dst/package-lock.json"; then
    return 0
  fi
  say "$name: npm ci (pinned by $src/package-lock.json)"
  cp "$src/package.json" "$src/package-lock.json" "$dst/"
  (cd "$dst" && npm ci --ignore-scripts --no-audit --no-fund --silent >/dev/null 2>&1) ||
    { say "$name: npm ci failed (is the npm registry reachable?)"; return 1; }
}

# pip_setup SRC DST NAME: the packages of SRC's requirements.txt (exact
# versions with sha256 hashes) from PyPI into DST/site-packages, without
# their dependencies; again only when the requirements changed. The copy of
# requirements.txt in DST is written last and marks a complete install.
# Everything runs in a virtual environment of its own that does not see the
# machine's Python packages: an sdist's setup.py runs there, and sees only
# the build tools of SRC's build-requirements.txt when there is one (pinned
# and hashed, as pip's build isolation would not pin them), not whatever
# else is installed.
pip_setup() {
  local src=$1 dst=$2 name=$3
  local site=$dst/site-packages venv=$dst/build-venv
  if [[ -d $site ]] && cmp -s "$src/requirements.txt" "$dst/requirements.txt"; then
    return 0
  fi
  say "$name: pip install (pinned by $src/requirements.txt)"
  mkdir -p "$dst"
  rm -rf "$site" "$site.tmp" "$venv" "$dst/requirements.txt"
  local pip=("$venv/bin/python" -m pip install --require-hashes --no-input
    --disable-pip-version-check)
  if ! { /usr/bin/python3 -m venv "$venv" &&
    { [[ ! -f $src/build-requirements.txt ]] || "${pip[@]}" -r "$src/build-requirements.txt"; } &&
    "${pip[@]}" --no-deps --no-build-isolation --target "$site.tmp" -r "$src/requirements.txt"; } \
    </dev/null >"$dst/pip.log" 2>&1; then
    say "$name: pip install failed (is PyPI reachable?): $(tail -3 "$dst/pip.log")"
    return 1
  fi
  mv "$site.tmp" "$site"
  cp "$src/requirements.txt" "$dst/"
}
