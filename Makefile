# LocalLLMKit: every target first runs scripts/bootstrap (idempotent, cached).
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

.PHONY: all bootstrap build demo test races bench install uninstall clean

all: build

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build -c release --product llmkit

# The main job on the default model (SmolLM2-135M-Instruct, a chat model): answer a question,
# streamed, with timing figures.
demo: build
	.build/release/llmkit run --max-tokens 128 --temperature 0.2 --seed 42 --stats "$(PROMPT)"
	@echo

# Unit and end-to-end tests through the real libllama and the real model.
# Serial, so that the memory-stability test measures this process alone.
# Then a package that depends on this one by version builds every swift block of README.md and of
# the doc comments, and runs the README's examples (scripts/check-dependent-package).
test: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel
	scripts/check-engine-leaf
	scripts/check-dependent-package

# The concurrency tests under ThreadSanitizer, in their own build folder (slow: not part of test).
races: bootstrap
	scripts/check-races

# llmkit bench side by side with llama-bench, and peak memory against llama-completion.
bench: build
	bench/compare.sh

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
