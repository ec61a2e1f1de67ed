# pmrag - the front door. `make demo` and `make test` work on a fresh
# Debian 12 machine: both install what is missing first (deploy/deps.sh).
#
#   make deps    Debian packages + the pinned tree-sitter grammars
#   make build   CMake, RelWithDebInfo, warnings as errors  -> build/cmd/pmrag
#   make test    build + the whole ctest suite (unit, integration, acceptance)
#   make demo    build + index the bundled demo application, show what it found
#   make asan    AddressSanitizer + UBSan build and its test run (build-asan/)
#   make bench   build + the benchmarks (print figures; not timed tests)
#   make fuzz    libFuzzer targets (clang, build-fuzz/), FUZZ_SECONDS each
#   make clean   remove build directories

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
# The nested make that cmake --build runs need not announce directories.
MAKEFLAGS  += --no-print-directory

.PHONY: all deps build test demo asan bench fuzz clean

all: build

deps:
	@deploy/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMRAG_WERROR=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) --label-exclude bench

demo: build
	@deploy/demo/run.sh $(BUILD)/cmd/pmrag

asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPMRAG_WERROR=ON -DPMRAG_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) --label-regex 'unit|integration'

# Every parser of untrusted bytes under libFuzzer with ASan and UBSan
# (tests/fuzz): FUZZ_SECONDS each on a copy of its seed corpus, JOBS at a
# time, then a table; fails on any crash, leak or timeout. -O1: fuzzing
# wants speed, the Debug build type keeps assertions.
fuzz: deps
	@cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
		-DCMAKE_C_FLAGS_DEBUG="-g -O1" -DPMRAG_FUZZ=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_targets
	@tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(JOBS)

bench: build
	@ctest --test-dir $(BUILD) --output-on-failure --label-regex bench -V

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-release build-fuzz
