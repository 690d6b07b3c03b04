# make run  : install what is missing, build (Release), run the main job on the default example
# make test : the same set-up, then every test (ctest)
BUILD   ?= build
JOBS    ?= $(shell nproc)
WERROR  ?= $(if $(CI),ON,OFF)
INFERCAP = $(BUILD)/cli/infercap

.PHONY: all deps configure build run test bench format tidy clean

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
