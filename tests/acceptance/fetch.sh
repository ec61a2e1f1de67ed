#!/usr/bin/env bash
# Fetch the pinned acceptance corpora and tools into CACHE_DIR.
#
#   tests/acceptance/fetch.sh [CACHE_DIR]     (default: <repo>/.deps/corpora)
#
# Each tarball listed in tests/acceptance/corpora.sha256 ("SHA256  NAME-VERSION.tgz")
# is obtained with `npm pack NAME@VERSION`, checked against its SHA-256, and
# unpacked as-is into CACHE_DIR/NAME-VERSION/ (so the contents sit under
# CACHE_DIR/NAME-VERSION/package/...). Idempotent: when a verified tarball and
# its unpacked folder are already present, nothing is fetched and npm is not
# called, so a warm cache works offline. A checksum mismatch is an error (exit 1).
#
# Resulting layout:
#   CACHE_DIR/rxjs-7.8.1/package/src/...                 TS corpus
#   CACHE_DIR/webpack-5.97.1/package/{lib,bin,hot,...}   JS corpus
#   CACHE_DIR/typescript-5.9.3/package/lib/typescript.js TS compiler used by ts_symbols_check.js
# The Python corpus is pip from Debian's python3-pip (/usr/lib/python3/dist-packages/pip);
# it is only checked for here, not installed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CACHE="${1:-$REPO/.deps/corpora}"
SUMS="$HERE/corpora.sha256"

die() { echo "fetch.sh: error: $*" >&2; exit 1; }
log() { echo "fetch.sh: $*" >&2; }

[ -f "$SUMS" ] || die "missing $SUMS"
mkdir -p "$CACHE"
CACHE="$(cd "$CACHE" && pwd)"

sha_of() { sha256sum "$1" | awk '{print $1}'; }

while read -r want file; do
  [ -n "${want:-}" ] || continue
  case "$want" in \#*) continue ;; esac
  [ -n "${file:-}" ] || die "malformed line in $SUMS: $want"
  base="${file%.tgz}"                  # e.g. typescript-5.9.3
  name="${base%-*}"                    # typescript
  version="${base##*-}"                # 5.9.3
  spec="$name@$version"
  tgz="$CACHE/$file"
  dir="$CACHE/$base"
  stamp="$dir/.fetch-sha256"

  # 1. tarball present and verified?
  if [ -f "$tgz" ]; then
    got="$(sha_of "$tgz")"
    if [ "$got" != "$want" ]; then
      die "checksum mismatch for $tgz: expected $want, got $got (delete it to refetch)"
    fi
  else
    log "npm pack $spec"
    tmp="$(mktemp -d "$CACHE/.pack.XXXXXX")"
    if ! (cd "$tmp" && npm pack "$spec" --silent --pack-destination "$tmp" >/dev/null); then
      rm -rf "$tmp"; die "npm pack $spec failed"
    fi
    [ -f "$tmp/$file" ] || { ls -la "$tmp" >&2; rm -rf "$tmp"; die "npm pack $spec did not produce $file"; }
    got="$(sha_of "$tmp/$file")"
    if [ "$got" != "$want" ]; then
      rm -rf "$tmp"
      die "checksum mismatch for $spec: expected $want, got $got"
    fi
    mv -f "$tmp/$file" "$tgz"
    rm -rf "$tmp"
  fi

  # 2. unpacked folder present and from this tarball?
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$dir/package" ]; then
    log "ok   $base (cached)"
    continue
  fi
  log "unpack $file -> $dir"
  tmpd="$(mktemp -d "$CACHE/.unpack.XXXXXX")"
  tar -xzf "$tgz" -C "$tmpd" --no-same-owner || { rm -rf "$tmpd"; die "cannot unpack $tgz"; }
  [ -d "$tmpd/package" ] || { rm -rf "$tmpd"; die "$tgz has no package/ folder"; }
  echo "$want" > "$tmpd/.fetch-sha256"
  rm -rf "$dir"
  mv "$tmpd" "$dir"
  log "ok   $base"
done < "$SUMS"

PIPDIR=/usr/lib/python3/dist-packages/pip
if [ -d "$PIPDIR" ]; then
  log "ok   pip sources at $PIPDIR"
else
  log "warning: $PIPDIR missing (apt-get install python3-pip) - the Python acceptance corpus is unavailable"
fi
echo "$CACHE"
