# make run  : install what is missing, build (Release), run the main job on the default example
# make test : the same set-up, then every test (ctest)
# make test-sanitize : every test again under AddressSanitizer + UndefinedBehaviorSanitizer
#              (float-cast-overflow included) + LeakSanitizer, in its own build folder; only the
#              targets the tests run are built (no GUI, benches or CUDA), to keep CI short
BUILD   ?= build
JOBS    ?= $(shell nproc)
WERROR  ?= $(if $(CI),ON,OFF)
INFERCAP = $(BUILD)/cli/infercap

.PHONY: all deps configure build run test test-sanitize fuzz-smoke bench format tidy clean

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
SANITIZE_BUILD ?= build-sanitize
SANITIZE_FLAGS = -fsanitize=address,undefined,float-cast-overflow \
                 -fno-sanitize-recover=undefined,float-cast-overflow -fno-omit-frame-pointer
SANITIZE_ENV = ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1 \
               UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
               LSAN_OPTIONS=suppressions=$(CURDIR)/.ci/lsan.supp

# Warnings are not errors here: under ASan's instrumentation GCC 12 reports maybe-uninitialized
# inside libstdc++'s own <regex> (a false positive); the Release build holds the same sources to
# -Werror.
# -O1 -g1: line tables are all a sanitizer report needs, and the build is most of CI's time.
$(SANITIZE_BUILD)/CMakeCache.txt:
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=None -DINFERCAP_WERROR=OFF \
	  -DINFERCAP_BUILD_GUI=OFF -DINFERCAP_BUILD_BENCH=OFF -DINFERCAP_WITH_CUDA=OFF \
	  -DCMAKE_CXX_FLAGS="-O1 -g1 -DNDEBUG $(SANITIZE_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
	  -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined"

test-sanitize: deps $(SANITIZE_BUILD)/CMakeCache.txt
	cmake --build $(SANITIZE_BUILD) -j $(JOBS) --target infercap infercap_tests
	cd $(SANITIZE_BUILD) && $(SANITIZE_ENV) ctest --output-on-failure -j $(JOBS)

# libFuzzer targets (fuzz/README.md) built with clang, each run for FUZZ_SECONDS on its corpus.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
$(FUZZ_BUILD)/CMakeCache.txt:
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_BUILD) -DINFERCAP_FUZZ=ON \
	  -DINFERCAP_BUILD_GUI=OFF -DINFERCAP_BUILD_BENCH=OFF -DINFERCAP_BUILD_TESTS=OFF \
	  -DINFERCAP_WITH_CUDA=OFF -DINFERCAP_WITH_OPENCL=OFF -DCMAKE_BUILD_TYPE=None \
	  "-DCMAKE_CXX_FLAGS=-O1 -gline-tables-only -DNDEBUG -fsanitize=address,undefined,float-cast-overflow,fuzzer-no-link \
	  -fno-sanitize-recover=undefined,float-cast-overflow"

fuzz-smoke: deps $(FUZZ_BUILD)/CMakeCache.txt
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target infercap_fuzz
	for t in units spec measurements import; do \
	  mkdir -p $(FUZZ_BUILD)/fuzz/new-$$t && \
	  $(FUZZ_BUILD)/fuzz/fuzz_$$t $(FUZZ_BUILD)/fuzz/new-$$t fuzz/corpus/$$t \
	    -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 || exit 1; \
	done

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
