# rooftop — the two commands of the quick start:
#   make run    set up this Debian 12 machine, build, run the main job
#   make test   set up, build, run every test (then the unit tests under ASan+UBSan,
#               and a build with the CUDA backend when nvcc is installed)
# Other targets: build, unit, asan, cuda, bench, package, image, clean.

JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
BUILD     ?= build
ASAN      ?= build-asan
CUDA_BUILD ?= build-cuda
CMAKE_ARGS ?=
CTEST_ARGS ?=
# The CUDA benchmark backend is compiled whenever nvcc exists (run only with a GPU).
NVCC      := $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))

.PHONY: run test setup build unit asan cuda bench package image clean

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The main job on the embedded default scenario.
run: build
	./$(BUILD)/rooftop advise data/scenarios/default.yaml

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)
	$(MAKE) asan
	$(MAKE) cuda

unit: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

$(ASAN)/build.ninja:
	cmake -S . -B $(ASAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DROOFTOP_SANITIZE=address,undefined $(CMAKE_ARGS)

# Unit and golden tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
asan: setup $(ASAN)/build.ninja
	cmake --build $(ASAN) -j $(JOBS)
	cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -L 'unit|golden' -LE slow

# The same binary with the CUDA backend (cuBLAS, NCCL) compiled in, when nvcc
# exists; its tests carry the `gpu` label and skip without a device.
cuda: setup
ifneq ($(NVCC),)
	cmake -S . -B $(CUDA_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROOFTOP_CUDA=ON \
	  -DCMAKE_CUDA_COMPILER=$(NVCC) -DROOFTOP_BUILD_TESTS=OFF $(CMAKE_ARGS)
	cmake --build $(CUDA_BUILD) -j $(JOBS) --target rooftop
	./$(CUDA_BUILD)/rooftop --version
else
	@echo "nvcc not found: the CUDA backend is not compiled"
endif

bench: build
	@for b in $(BUILD)/bench_*; do echo "== $$b"; $$b --benchmark_min_time=0.2; done

# The Debian package (CPack; dependencies from dpkg-shlibdeps): build/rooftop_VERSION_ARCH.deb
package: build
	cmake --build $(BUILD) --target package

# The container image rooftop:VERSION and rooftop:latest (podman or buildah; Containerfile).
image: build
	bash scripts/image.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN) $(CUDA_BUILD)
