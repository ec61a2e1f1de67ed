# pmrag - the front door. `make demo` and `make test` work on a fresh
# Debian 12 machine: both install what is missing first (deploy/deps.sh).
# The build settings are CMakePresets.json's; this file only names the steps.
#
#   make deps    Debian packages + the pinned tree-sitter grammars
#   make build   preset dev (RelWithDebInfo, warnings as errors) -> build/cmd/pmrag
#   make test    build + the whole ctest suite but the benchmarks (unit,
#                integration, acceptance, ui, grpc, kafka, collector). The
#                first run fills .deps/: the Python venv, the Kafka broker's
#                jars (Maven Central) and the OpenTelemetry Collector, built
#                with Go (go >= 1.24 on PATH; minutes); later runs reuse it
#   make kafka   build + only the tests against a real Apache Kafka (label kafka)
#   make collector  build + only the tests through a real OpenTelemetry
#                Collector (label collector)
#   make demo    build + index the bundled demo application, show what it found
#   make asan    preset asan: AddressSanitizer + UBSan build and its tests (build-asan/)
#   make lint    clang-format check + clang-tidy over every module (tests/lint.sh)
#   make bench   build + the benchmarks (print figures; not timed tests)
#   make fuzz    preset fuzz: libFuzzer targets (clang, build-fuzz/), FUZZ_SECONDS each
#   make clean   remove build directories

FUZZ_SECONDS ?= 60
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
# The nested make that cmake --build runs need not announce directories.
MAKEFLAGS  += --no-print-directory

.PHONY: all deps build test kafka collector demo asan lint bench fuzz clean

all: build

deps:
	@deploy/deps.sh

build: deps
	@cmake --preset dev $(CMAKE_ARGS) >/dev/null
	@cmake --build --preset dev -j $(JOBS)

# The OpenTelemetry SDK (the demo application runs on it), the broker's
# jars and the Collector are fetched here rather than by the first test
# that needs them: the Collector's build (minutes) would otherwise run
# inside a test's timeout, with the suite waiting on it. The kafka and
# collector tests run one at a time (RUN_SERIAL), the rest JOBS at a time.
test: build
	@deploy/deps.sh --otel
	@deploy/deps.sh --kafka
	@deploy/deps.sh --collector
	@ctest --preset dev -j $(JOBS) --label-exclude bench

kafka: build
	@ctest --preset dev --label-regex kafka --output-on-failure

collector: build
	@ctest --preset dev --label-regex collector --output-on-failure

demo: build
	@deploy/demo/run.sh build/cmd/pmrag

asan: deps
	@cmake --preset asan $(CMAKE_ARGS) >/dev/null
	@cmake --build --preset asan -j $(JOBS)
	@ctest --preset asan -j $(JOBS) --label-regex 'unit|integration'

lint: build
	@tests/lint.sh build $(JOBS)

# Every parser of untrusted bytes under libFuzzer with ASan and UBSan
# (tests/fuzz): FUZZ_SECONDS each on a copy of its seed corpus, JOBS at a
# time, then a table; fails on any crash, leak or timeout.
fuzz: deps
	@cmake --preset fuzz $(CMAKE_ARGS) >/dev/null
	@cmake --build --preset fuzz -j $(JOBS) --target fuzz_targets
	@tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(JOBS)

bench: build
	@ctest --preset dev --label-regex bench -V

clean:
	rm -rf build build-asan build-release build-fuzz
