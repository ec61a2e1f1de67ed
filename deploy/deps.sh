#!/usr/bin/env bash
# Installs what pmrag needs to build and test, and nothing that is already there.
#
#   deploy/deps.sh            Debian packages + tree-sitter grammars
#   deploy/deps.sh --grammars only the grammars (no root needed)
#   deploy/deps.sh --kafka    the Apache Kafka broker of the `kafka` tests
#                             (and OpenJDK 17 and Maven, when missing)
#   deploy/deps.sh --ui       only playwright-core, for the `ui` test (no
#                             root needed)
#   deploy/deps.sh --otel     the OpenTelemetry Python SDK and its OTLP/HTTP
#                             and OTLP/gRPC exporters in .deps/otel-venv (python3-venv
#                             when missing): the demo application traces through
#                             it, so the demo and every test that runs the
#                             application or its simulator need it
#                             (deploy/otel-python.sh asks for it)
#   deploy/deps.sh --collector  the OpenTelemetry Collector of the
#                             `collector` tests, built with Go (see below)
#
# Debian packages come from apt-get (the list is in DEVELOPERS.md and below);
# the two tree-sitter grammars come from the npm registry at pinned versions
# and are verified against deploy/grammars.sha256 before they are unpacked
# into .deps/grammars (git-ignored). Running it twice does nothing the second
# time. The live view's browser test uses Debian's chromium (a package
# below) driven by playwright-core, which `npm ci` installs into .deps/ui
# from tests/ui/package-lock.json (versions and integrity hashes pinned);
# no browser is ever downloaded. --kafka is not part of the default run: the tests labelled `kafka`
# call it themselves (tests/kafka/broker.sh). It copies the jars that
# tests/kafka/pom.xml names from Maven Central into .deps/kafka/VERSION
# (Maven's own cache in .deps/kafka/m2) and checks every one against
# tests/kafka/jars.sha256: a jar missing from the list, or listed and
# missing, fails too. After a version change, rewrite the list with
#   (cd .deps/kafka/VERSION && sha256sum *.jar) >tests/kafka/jars.sha256
# and review it.
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
  libnghttp2-dev libgnutls28-dev
  libyaml-dev libexpat1-dev zlib1g-dev
  python3 python3-pip python3-botocore python3-boto3 python3-yaml
  valgrind clang libclang-rt-14-dev clang-tidy clang-format
  openssl
  chromium
)

grammars=(
  "tree-sitter-python 0.23.6"
  "tree-sitter-typescript 0.23.2"
)

say() { printf 'deps: %s\n' "$*"; }

# apt_install PACKAGE...: those of PACKAGE... not installed yet (as root, or
# through sudo).
apt_install() {
  local missing=() p st
  for p in "$@"; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ $st == "install ok installed" ]] || missing+=("$p")
  done
  ((${#missing[@]} > 0)) || return 0
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

install_packages() {
  local want=("${packages[@]}")
  # npm and node: any working npm will do (the grammars are plain tarballs).
  command -v npm >/dev/null 2>&1 || want+=(nodejs npm)
  apt_install "${want[@]}"
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

# playwright-core for tests/ui: `npm ci` of tests/ui/package-lock.json into
# .deps/ui, again only when the lock changed. Its install script is not run
# (it would download browsers).
fetch_ui() {
  local src=$top/tests/ui dst=$deps_dir/ui
  if [[ -d $dst/node_modules/playwright-core ]] && cmp -s "$src/package-lock.json" "$dst/package-lock.json"; then
    return 0
  fi
  command -v npm >/dev/null 2>&1 || { echo "deps: npm is needed for playwright-core" >&2; exit 1; }
  say "installing playwright-core (pinned by tests/ui/package-lock.json) into $dst"
  rm -rf "$dst"
  mkdir -p "$dst"
  cp "$src/package.json" "$src/package-lock.json" "$dst/"
  (cd "$dst" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --ignore-scripts --no-audit --no-fund --silent) >/dev/null 2>&1 || {
    echo "deps: npm ci in $dst failed (is the npm registry reachable?)" >&2
    rm -f "$dst/package-lock.json"
    exit 1
  }
}

# The OpenTelemetry Python SDK: a virtual environment of the machine's
# python3 (Debian's 3.11) in .deps/otel-venv, every wheel pinned with its
# SHA-256 by deploy/otel-requirements.txt (pip --require-hashes --no-deps:
# nothing unpinned comes in), again only when that file changed (the stamp
# holds its checksum). Every test that runs the demo application asks for
# it, several at a time: a lock keeps a second caller waiting until the
# first has installed it, instead of both building the venv in one place.
fetch_otel() {
  local req=$here/otel-requirements.txt dst=$deps_dir/otel-venv want py=/usr/bin/python3
  [[ -x $py ]] || py=$(command -v python3)
  want=$(sha256sum "$req" | awk '{print $1}')
  mkdir -p "$deps_dir"
  exec 9>"$deps_dir/otel-venv.lock"
  flock 9
  if [[ -f $dst/.stamp && $(cat "$dst/.stamp") == "$want" && -x $dst/bin/python ]]; then
    return 0
  fi
  "$py" -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv
  say "installing the OpenTelemetry Python SDK (pinned by deploy/otel-requirements.txt) into $dst"
  rm -rf "$dst"
  "$py" -m venv "$dst" || { echo "deps: python3 -m venv $dst failed" >&2; exit 1; }
  "$dst/bin/python" -m pip install -q --disable-pip-version-check --no-input --require-hashes \
    --no-deps --only-binary=:all: -r "$req" >"$deps_dir/otel-pip.log" 2>&1 || {
    tail -20 "$deps_dir/otel-pip.log" >&2
    echo "deps: pip install -r $req failed (is PyPI reachable?)" >&2
    rm -rf "$dst"
    exit 1
  }
  "$dst/bin/python" -c 'import opentelemetry.sdk, opentelemetry.exporter.otlp.proto.http, opentelemetry.exporter.otlp.proto.grpc' || {
    echo "deps: the OpenTelemetry SDK in $dst does not import" >&2
    rm -rf "$dst"
    exit 1
  }
  echo "$want" >"$dst/.stamp"
  say "OpenTelemetry SDK $("$dst/bin/python" -c 'from importlib.metadata import version; print(version("opentelemetry-sdk"))') in $dst"
}

# The broker's jars: .deps/kafka/VERSION/*.jar, verified, with a stamp (the
# checksum of the list) so that a second run only compares the stamp.
fetch_kafka() {
  local pom=$top/tests/kafka/pom.xml sums=$top/tests/kafka/jars.sha256 ver dir want
  apt_install openjdk-17-jdk-headless maven
  ver=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom")
  [[ -n $ver ]] || { echo "deps: no kafka.version in $pom" >&2; exit 1; }
  dir=$deps_dir/kafka/$ver
  want=$(sha256sum "$sums" | awk '{print $1}')
  if [[ -f $dir/.stamp && $(cat "$dir/.stamp") == "$want" ]]; then
    return 0
  fi
  say "fetching Apache Kafka $ver (broker jars) from Maven Central"
  local t0=$SECONDS
  rm -rf "$dir"
  mkdir -p "$dir"
  # A scratch directory for Maven's target/: the source tree stays clean.
  (cd "$deps_dir/kafka" && mvn -q -B -f "$pom" -Dmaven.repo.local="$deps_dir/kafka/m2" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$dir") >"$deps_dir/kafka/mvn.log" 2>&1 || {
    tail -20 "$deps_dir/kafka/mvn.log" >&2
    echo "deps: mvn dependency:copy-dependencies failed (is Maven Central reachable?)" >&2
    exit 1
  }
  if ! (cd "$dir" && sha256sum --quiet --strict -c "$sums"); then
    echo "deps: checksum mismatch in $dir (against $sums)" >&2
    exit 1
  fi
  local extra
  extra=$(cd "$dir" && ls -- *.jar | grep -vxFf <(awk '{print $2}' "$sums") || true)
  if [[ -n $extra ]]; then
    echo "deps: jars not in $sums: $extra" >&2
    exit 1
  fi
  echo "$want" >"$dir/.stamp"
  say "Apache Kafka $ver: $(wc -l <"$sums") jars verified in $dir ($((SECONDS - t0)) s)"
}

# The OpenTelemetry Collector of the `collector` tests, built by the
# Collector builder from deploy/collector/manifest.yaml (every module pinned
# there; deploy/collector/go.sum the checksum record) into
# .deps/collector/VERSION/otelcol-pmrag. Heavy (minutes, about 1 GB of Go
# module and build caches, all under .deps/go): never part of the default
# run; tests/collector/ asks for it. Go comes from the machine (go >= 1.24
# on PATH; Debian 12's golang is too old). A stamp (the checksums of the
# manifest and go.sum) makes a second run a comparison.
fetch_collector() {
  local man=$here/collector/manifest.yaml sums=$here/collector/go.sum ver dir want gobin
  command -v go >/dev/null 2>&1 || {
    echo "deps: the collector needs Go (go >= 1.24 on PATH)" >&2
    exit 1
  }
  ver=$(sed -n 's/^  version: *\([0-9][0-9.]*\) *$/\1/p' "$man" | head -1)
  [[ -n $ver ]] || { echo "deps: no dist.version in $man" >&2; exit 1; }
  dir=$deps_dir/collector/$ver
  want=$(cat "$man" "$sums" 2>/dev/null | sha256sum | awk '{print $1}' || true)
  if [[ -x $dir/otelcol-pmrag && -f $dir/.stamp && $(cat "$dir/.stamp") == "$want" ]]; then
    return 0
  fi
  # Everything Go writes stays under .deps/go; one or two compile jobs at
  # a time, at the lowest priority (2 cores shared with the tests).
  export GOPATH=$deps_dir/go GOMODCACHE=$deps_dir/go/mod GOCACHE=$deps_dir/go/cache
  export GOFLAGS="-p=${COLLECTOR_JOBS:-1} -buildvcs=false" GOTOOLCHAIN=local CGO_ENABLED=0
  export GOTMPDIR=$deps_dir/go/tmp
  gobin=$deps_dir/go/bin
  mkdir -p "$dir" "$gobin" "$GOTMPDIR"
  say "building the OpenTelemetry Collector $ver (builder v$ver, from the Go module proxy) into $dir"
  local t0=$SECONDS
  if [[ ! -x $gobin/builder-v$ver ]]; then
    GOBIN=$gobin nice -n 19 go install "go.opentelemetry.io/collector/cmd/builder@v$ver" >"$dir/build.log" 2>&1 || {
      tail -20 "$dir/build.log" >&2
      echo "deps: go install go.opentelemetry.io/collector/cmd/builder@v$ver failed" >&2
      exit 1
    }
    mv "$gobin/builder" "$gobin/builder-v$ver"
  fi
  rm -rf "$dir/src"
  mkdir -p "$dir/src"
  sed "s|^  output_path:.*|  output_path: $dir/src|" "$man" >"$dir/manifest.yaml"
  # The recorded go.sum, in place before the builder's `go mod tidy`: the
  # go command then refuses any module whose hash differs from it.
  if [[ -f $sums ]]; then cp "$sums" "$dir/src/go.sum"; fi
  nice -n 19 "$gobin/builder-v$ver" --config "$dir/manifest.yaml" >>"$dir/build.log" 2>&1 || {
    tail -30 "$dir/build.log" >&2
    echo "deps: the Collector builder failed (log: $dir/build.log)" >&2
    exit 1
  }
  if [[ -f $sums ]]; then
    cmp -s "$sums" "$dir/src/go.sum" || {
      diff "$sums" "$dir/src/go.sum" | head -20 >&2
      echo "deps: the build's go.sum differs from $sums (review it; after a version change delete $sums and build again)" >&2
      exit 1
    }
  else
    cp "$dir/src/go.sum" "$sums"
    say "recorded the build's module checksums in $sums: review and commit it"
    want=$(cat "$man" "$sums" | sha256sum | awk '{print $1}')
  fi
  mv "$dir/src/otelcol-pmrag" "$dir/otelcol-pmrag"
  echo "$want" >"$dir/.stamp"
  say "OpenTelemetry Collector $ver: $dir/otelcol-pmrag ($("$dir/otelcol-pmrag" --version 2>&1 | head -1); built in $((SECONDS - t0)) s)"
}

case "${1:-}" in
  --grammars) fetch_grammars ;;
  --kafka) fetch_kafka ;;
  --collector) fetch_collector ;;
  --ui) fetch_ui ;;
  --otel) fetch_otel ;;
  "") install_packages; fetch_grammars; fetch_ui ;;
  -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
  *) echo "deps: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac
