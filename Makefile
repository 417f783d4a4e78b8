# LocalLLMKit: every target first runs scripts/bootstrap (what an app needs) or, for the tests and
# benchmarks, scripts/bootstrap-test (that and the reference tools and test models); both idempotent, cached.
SWIFT         ?= swift
# PREFIX=… is a shorter spelling of LLMKIT_PREFIX=… (make install PREFIX=/opt/llmkit).
ifdef PREFIX
LLMKIT_PREFIX := $(PREFIX)
endif
LLMKIT_PREFIX ?= /usr/local
PROMPT        ?= What is the capital of France? Answer in one sentence.

# Let SwiftPM and the tests find llama.cpp in a non-default prefix too.
export LLMKIT_PREFIX
export PKG_CONFIG_PATH := $(LLMKIT_PREFIX)/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
export LD_LIBRARY_PATH := $(LLMKIT_PREFIX)/lib$(if $(LD_LIBRARY_PATH),:$(LD_LIBRARY_PATH))
export PATH := $(LLMKIT_PREFIX)/bin:$(PATH)

.PHONY: all bootstrap bootstrap-test build demo test soak races bench dist install uninstall clean

all: build

bootstrap:
	@scripts/bootstrap

bootstrap-test:
	@scripts/bootstrap-test

build: bootstrap
	$(SWIFT) build -c release --product llmkit

# The main job on the default model (SmolLM2-135M-Instruct, a chat model): answer a question,
# streamed, with timing figures.
demo: build
	.build/release/llmkit run --max-tokens 128 --temperature 0.2 --seed 42 --stats "$(PROMPT)"
	@echo

# Unit and end-to-end tests through the real libllama and the real model, in two runs: first,
# one at a time, the suites that measure the whole process (resident memory, threads, counters of
# the template workers, a daemon under abuse); then everything else, three tests at a time, with
# OpenMP's idle threads asleep (docs/PERFORMANCE.md, "make test": 3 at a time took two thirds of
# the serial time on two cores; more ran out of memory).
# Then a package that depends on this one by version builds every swift block of README.md, of
# docs/ and of the doc comments, and runs the marked examples (scripts/check-dependent-package);
# and `make dist`'s archive is unpacked and run with a clean environment (scripts/check-dist).
WHOLE_PROCESS_SUITES = MemoryStabilityTests|ChatTemplateTests|TemplateWorkerTests|BatchingTests|DaemonTests|LoadAndFaultTests|SlowTemplateServeTests

test: bootstrap-test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel --filter '$(WHOLE_PROCESS_SUITES)'
	OMP_WAIT_POLICY=passive $(SWIFT) test --skip-build --skip '$(WHOLE_PROCESS_SUITES)' \
		--experimental-maximum-parallelization-width 3
	scripts/check-engine-leaf
	scripts/check-dependent-package
	scripts/check-dist

# The load tests at their full size: 32 clients sending 400 requests, and the chat workload under
# abuse with the review's 8 embedding texts of 1,500 words; speculation's greedy identity on all 7
# chat requests, the schema property test on 20 seeds and 50 load cycles of the memory test
# (make test runs them smaller: the same properties on fewer cases).
soak: bootstrap-test
	$(SWIFT) build --build-tests
	LLMKIT_SOAK=1 $(SWIFT) test --skip-build --no-parallel \
		--filter 'LoadAndFaultTests|DaemonTests|MemoryStabilityTests|SpeculativeGreedyIdentityTests|StructuredGenerationTests'

# The concurrency tests under ThreadSanitizer, in their own build folder (slow: not part of test).
races: bootstrap-test
	scripts/check-races

# llmkit bench side by side with llama-bench, and peak memory against llama-completion.
bench: build
	@scripts/bootstrap-test
	bench/compare.sh

# dist/llmkit-VERSION-linux-ARCH.tar.gz: bin/llmkit with the Swift runtime linked in and llama.cpp's
# libraries under lib/ (found through a relative rpath): unpack it anywhere and run bin/llmkit.
dist: bootstrap
	scripts/dist

# llmkit into $(LLMKIT_PREFIX)/bin, beside the llama.cpp that the bootstrap installed there
# (`make install PREFIX=…` works too). The Swift runtime is linked in statically, so the
# binary runs without the toolchain. Copied to a temporary name first, then renamed.
install: bootstrap
	$(SWIFT) build -c release --static-swift-stdlib --product llmkit
	install -d $(LLMKIT_PREFIX)/bin
	install -m 755 .build/release/llmkit $(LLMKIT_PREFIX)/bin/.llmkit.new
	mv -f $(LLMKIT_PREFIX)/bin/.llmkit.new $(LLMKIT_PREFIX)/bin/llmkit
	@echo "installed $(LLMKIT_PREFIX)/bin/llmkit"

# Removes llmkit and the llama.cpp files the bootstrap installed (listed in
# share/llmkit/installed-files); keeps the cache and the model library (scripts/uninstall).
uninstall:
	scripts/uninstall

clean:
	$(SWIFT) package clean
