#!/usr/bin/env bash
# Installs what pmrag needs to build and test, and nothing that is already there.
#
#   deploy/deps.sh            Debian packages + tree-sitter grammars
#   deploy/deps.sh --grammars only the grammars (no root needed)
#
# Debian packages come from apt-get (the list is in DEVELOPERS.md and below);
# the two tree-sitter grammars come from the npm registry at pinned versions
# and are verified against deploy/grammars.sha256 before they are unpacked
# into .deps/grammars (git-ignored). Running it twice does nothing the second
# time.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
deps_dir=${PMRAG_DEPS_DIR:-$top/.deps}

# Keep this list in step with DEVELOPERS.md.
packages=(
  build-essential cmake pkg-config git ca-certificates
  libtree-sitter-dev
  librdkafka-dev kcat
  libprotobuf-c-dev protobuf-c-compiler
  liblmdb-dev lmdb-utils libpcre2-dev libmicrohttpd-dev libjansson-dev
  libyaml-dev libexpat1-dev zlib1g-dev
  python3 python3-pip python3-botocore python3-boto3 python3-yaml
  valgrind clang libclang-rt-14-dev clang-tidy clang-format
  openssl
)

grammars=(
  "tree-sitter-python 0.23.6"
  "tree-sitter-typescript 0.23.2"
)

say() { printf 'deps: %s\n' "$*"; }

install_packages() {
  local missing=() p st
  for p in "${packages[@]}"; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ $st == "install ok installed" ]] || missing+=("$p")
  done
  # npm and node: any working npm will do (the grammars are plain tarballs).
  if ! command -v npm >/dev/null 2>&1; then
    missing+=(nodejs npm)
  fi
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  local sudo=()
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || {
      echo "deps: missing packages: ${missing[*]}; run as root or install sudo" >&2
      exit 1
    }
    sudo=(sudo)
  fi
  say "installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

fetch_grammars() {
  local gdir=$deps_dir/grammars sums=$here/grammars.sha256 entry name ver tgz want have
  mkdir -p "$gdir"
  for entry in "${grammars[@]}"; do
    read -r name ver <<<"$entry"
    tgz=$name-$ver.tgz
    want=$(awk -v f="$tgz" '$2 == f { print $1 }' "$sums")
    [[ -n $want ]] || { echo "deps: no checksum for $tgz in $sums" >&2; exit 1; }
    # The stamp holds the checksum of the tarball the folder was unpacked from.
    if [[ -f $gdir/$name/.stamp && $(cat "$gdir/$name/.stamp") == "$want" ]]; then
      continue
    fi
    if [[ ! -f $gdir/$tgz ]]; then
      command -v npm >/dev/null 2>&1 || { echo "deps: npm is needed to fetch $name@$ver" >&2; exit 1; }
      say "fetching $name@$ver from the npm registry"
      (cd "$gdir" && npm pack --silent "$name@$ver" >/dev/null 2>&1) || {
        echo "deps: npm pack $name@$ver failed (is the npm registry reachable?)" >&2
        exit 1
      }
    fi
    have=$(sha256sum "$gdir/$tgz" | awk '{print $1}')
    if [[ $have != "$want" ]]; then
      echo "deps: checksum mismatch for $gdir/$tgz: expected $want, got $have" >&2
      rm -f "$gdir/$tgz"
      exit 1
    fi
    rm -rf "$gdir/$name"
    mkdir -p "$gdir/$name"
    tar -xzf "$gdir/$tgz" -C "$gdir/$name" --strip-components=1
    echo "$want" >"$gdir/$name/.stamp"
    say "unpacked $name@$ver"
  done
}

case "${1:-}" in
  --grammars) fetch_grammars ;;
  "") install_packages; fetch_grammars ;;
  -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
  *) echo "deps: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac
