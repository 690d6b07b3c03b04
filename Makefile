# make run  : install what is missing, build (Release), run the main job on the default example
# make test : the same set-up, then every test (ctest)
# make test-sanitize : every test again under AddressSanitizer + UndefinedBehaviorSanitizer
#              (float-cast-overflow included) + LeakSanitizer, in its own clang build folder; only
#              the targets the tests run are built (no GUI, benches or CUDA), to keep CI short
# make fuzz-smoke : the libFuzzer targets from that same folder, FUZZ_SECONDS each
BUILD   ?= build
JOBS    ?= $(shell nproc)
WERROR  ?= $(if $(CI),ON,OFF)
INFERCAP = $(BUILD)/cli/infercap

.PHONY: all deps configure build run test test-sanitize fuzz-build fuzz-smoke bench format tidy clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DINFERCAP_WERROR=$(WERROR)

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(INFERCAP) plan data/examples/chat-service.yaml

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Any sanitizer report fails the run: UBSan halts on the first finding instead of printing and
# going on, LeakSanitizer runs at every exit (the CLI the golden tests start included).
# One clang build folder serves both the sanitizer suite and the libFuzzer targets: the libraries
# are compiled once, with ASan + UBSan and libFuzzer's coverage instrumentation (fuzzer-no-link:
# the tests run it as inert counters; the fuzz targets link libFuzzer itself). Compiling the
# libraries twice under the sanitizers was a third of CI's time.
# use_tls=0: clang 14's LeakSanitizer dies ("Tracer caught signal 11") scanning the dynamic TLS
# that PoCL's OpenCL libraries leave behind in the OpenCL module's tests (glibc 2.36); not
# scanning thread-local storage can only report more leaks, never hide one.
# The property test (tests/test_property_random.cpp) runs at full scale, 100k specs, in
# `make test`; under the sanitizers a quarter of it (INFERCAP_PROPERTY_SCALE) is what looks for
# memory and UB findings on the same code paths.
SANITIZE_BUILD ?= build-sanitize
FUZZ_BUILD ?= $(SANITIZE_BUILD)
SANITIZE_FLAGS = -fsanitize=address,undefined,float-cast-overflow \
                 -fno-sanitize-recover=undefined,float-cast-overflow -fno-omit-frame-pointer
SANITIZE_ENV = ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1 \
               UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
               LSAN_OPTIONS=suppressions=$(CURDIR)/.ci/lsan.supp:use_tls=0 \
               INFERCAP_PROPERTY_SCALE=0.25

# -O1 -gline-tables-only: line tables are all a sanitizer report needs, and the build is most of
# CI's time. Warnings are not errors here (the Release build holds the same sources to -Werror).
$(SANITIZE_BUILD)/CMakeCache.txt:
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=None \
	  -DINFERCAP_WERROR=OFF -DINFERCAP_FUZZ=ON \
	  -DINFERCAP_BUILD_GUI=OFF -DINFERCAP_BUILD_BENCH=OFF -DINFERCAP_WITH_CUDA=OFF \
	  "-DCMAKE_CXX_FLAGS=-O1 -gline-tables-only -DNDEBUG $(SANITIZE_FLAGS) -fsanitize=fuzzer-no-link" \
	  "-DCMAKE_C_FLAGS=-O1 -gline-tables-only -DNDEBUG $(SANITIZE_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
	  -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined"

test-sanitize: deps $(SANITIZE_BUILD)/CMakeCache.txt
	cmake --build $(SANITIZE_BUILD) -j $(JOBS) --target infercap infercap_tests
	cd $(SANITIZE_BUILD) && $(SANITIZE_ENV) ctest --output-on-failure -j $(JOBS)

# libFuzzer targets (fuzz/README.md), each run for FUZZ_SECONDS on its committed corpus, JOBS at a
# time (each is one process on one core). `fuzz-build` failing is a build error; a target's
# finding makes `fuzz-smoke` fail after every target has run, with its report printed.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = units spec measurements import
fuzz-build: deps $(FUZZ_BUILD)/CMakeCache.txt
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target infercap_fuzz

fuzz-smoke: fuzz-build
	@printf '%s\n' $(FUZZ_TARGETS) | xargs -P $(JOBS) -I{} sh -c '\
	  mkdir -p $(FUZZ_BUILD)/fuzz/new-{} && \
	  $(FUZZ_BUILD)/fuzz/fuzz_{} $(FUZZ_BUILD)/fuzz/new-{} fuzz/corpus/{} \
	    -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/fuzz/finding-{}- > $(FUZZ_BUILD)/fuzz/{}.log 2>&1; \
	  rc=$$?; tail -n 25 $(FUZZ_BUILD)/fuzz/{}.log | sed "s/^/[fuzz_{}] /"; \
	  [ $$rc -eq 0 ] || { echo "[fuzz_{}] FINDING (exit $$rc): $(FUZZ_BUILD)/fuzz/{}.log"; exit 1; }'

bench: build
	$(BUILD)/bench/infercap_bench

format:
	git ls-files '*.cpp' '*.hpp' '*.cu' | xargs clang-format -i

# Every C++ file the build compiles (CUDA's host file only when CUDA is configured).
tidy: configure
	git ls-files 'core/*.cpp' 'cli/*.cpp' 'calibration/*.cpp' 'gui/*.cpp' | \
	  while read -r f; do grep -q "/$$f\"" $(BUILD)/compile_commands.json && echo "$$f"; done | \
	  xargs clang-tidy -p $(BUILD) --quiet

clean:
	rm -rf $(BUILD)
