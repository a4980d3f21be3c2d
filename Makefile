# rooftop — the two commands of the quick start:
#   make run    set up this Debian 12 machine (build packages only), build the
#               binary, run the main job
#   make test   set up the test packages too, build everything, run every unit,
#               golden and end-to-end test except those labelled `slow`, in parallel
# And for CI (.ci/run) or before a release:
#   make check  make test, then the `slow` tests (fixed-time fuzzing, package and
#               image tests), the unit and golden tests again under ASan+UBSan,
#               and a build with the CUDA backend when nvcc is installed
# Other targets: setup, build, unit, asan, cuda, bench, profile, package, image, clean.

JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
BUILD     ?= build
ASAN      ?= build-asan
CUDA_BUILD ?= build-cuda
CMAKE_ARGS ?=
CTEST_ARGS ?=
# The CUDA benchmark backend is compiled whenever nvcc exists (run only with a GPU).
NVCC      := $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
CONFIGURE  = cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) >/dev/null

.PHONY: run test check setup setup-test build build-all unit asan cuda slow bench profile package image clean

# Packages: `setup` installs what building and running need; `setup-test`
# adds what the tests drive (GoogleTest, Prometheus, Chromium, clang, ...).
setup:
	@bash scripts/setup.sh
setup-test:
	@bash scripts/setup.sh --test

# The binary and the Python module (build/python; docs/python.md).
build: setup
	@$(CONFIGURE)
	cmake --build $(BUILD) -j $(JOBS) --target rooftop rooftop_python

# Everything: the binary, the test programs and the benchmarks. Configuring
# again lets a tree first built by `make run` pick up the test packages.
build-all: setup-test
	@$(CONFIGURE)
	cmake --build $(BUILD) -j $(JOBS)
	@bash scripts/build-profile.sh $(BUILD) 10

# The main job on the embedded default scenario.
run: build
	./$(BUILD)/rooftop advise data/scenarios/default.yaml

test: build-all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE slow $(CTEST_ARGS)

check: test slow asan cuda

# Tests labelled `slow`: the parsers' libFuzzer runs, a fixed time each
# (tests/fuzz; their targets are built here, with clang, not by
# `make build-all`) and whatever else needs minutes.
slow: build-all
	@if cmake --build $(BUILD) --target help | grep '^fuzzers:' >/dev/null; then \
	  cmake --build $(BUILD) -j $(JOBS) --target fuzzers; \
	else \
	  echo "the fuzz targets are not built (need clang++ and libclang-rt-14-dev); their tests say so and pass"; \
	fi
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L slow $(CTEST_ARGS)
	@cat $(BUILD)/fuzz-work/*/result.txt 2>/dev/null || true

unit: build-all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

# Unit and golden tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
# Files are compiled one by one here (no unity build), which also checks that
# every source file includes what it uses; no benchmarks.
asan: setup-test
	@cmake -S . -B $(ASAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DROOFTOP_SANITIZE=address,undefined \
	  -DROOFTOP_UNITY=OFF -DROOFTOP_BUILD_BENCH=OFF $(CMAKE_ARGS) >/dev/null
	cmake --build $(ASAN) -j $(JOBS)
	cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -L 'unit|golden' -LE slow

# The same binary with the CUDA backend (cuBLAS, NCCL) compiled in, when nvcc
# exists; its tests carry the `gpu` label and skip without a device.
cuda: setup
ifneq ($(NVCC),)
	@cmake -S . -B $(CUDA_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROOFTOP_CUDA=ON \
	  -DCMAKE_CUDA_COMPILER=$(NVCC) -DROOFTOP_BUILD_TESTS=OFF $(CMAKE_ARGS) >/dev/null
	cmake --build $(CUDA_BUILD) -j $(JOBS) --target rooftop
	./$(CUDA_BUILD)/rooftop --version
else
	@echo "nvcc not found: the CUDA backend is not compiled"
endif

bench: build-all
	@for b in $(BUILD)/bench_*; do echo "== $$b"; $$b --benchmark_min_time=0.2; done

# Where the last build's compile time went (ninja log) and the ccache hit rate.
profile:
	@bash scripts/build-profile.sh $(BUILD) 10

# The Debian package (CPack; dependencies from dpkg-shlibdeps): build/rooftop_VERSION_ARCH.deb
package: build
	cmake --build $(BUILD) --target package

# The container image rooftop:VERSION and rooftop:latest (podman or buildah,
# test packages; Containerfile).
image: setup-test build
	bash scripts/image.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN) $(CUDA_BUILD)
