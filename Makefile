# tooljson: every target sets up what it needs (.venv, the release build of the extension) by itself.
SHELL := /bin/bash
VENV := .venv
PYTHON := $(VENV)/bin/python
DEPS_STAMP := $(VENV)/.deps-installed
BUILD_STAMP := $(VENV)/.native-built
RUST_SOURCES := $(shell find src -name '*.rs') Cargo.toml pyproject.toml
PYTEST_ARGS ?=

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

$(PYTHON):
	python3 -m venv $(VENV)

$(DEPS_STAMP): requirements-dev.txt | $(PYTHON)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

$(BUILD_STAMP): $(DEPS_STAMP) $(RUST_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release --quiet
	touch $@

.PHONY: build
build: $(BUILD_STAMP) ## Build the extension (release) into .venv

.PHONY: demo
demo: $(BUILD_STAMP) ## Run the demo on the embedded default stream (no key, no network)
	$(PYTHON) -m tooljson demo

.PHONY: test
test: $(BUILD_STAMP) ## Run the Rust core tests (no libpython) and the Python tests
	cargo test --no-default-features --quiet
	$(PYTHON) -m pytest -q $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; rc=0; fi; exit $$rc

.PHONY: bench
bench: $(BUILD_STAMP) ## Run the benchmarks side by side
	$(PYTHON) -m pytest benches -q --benchmark-enable --benchmark-columns=median,iqr,rounds --benchmark-sort=name $(PYTEST_ARGS)

.PHONY: bench-report
bench-report: $(BUILD_STAMP) ## Run the benchmarks, write benches/REPORT.md and benches/scaling.png
	$(PYTHON) benches/report.py --json .benchmarks/latest.json $(if $(PYTEST_ARGS),-- $(PYTEST_ARGS))

.PHONY: test-dev
test-dev: $(BUILD_STAMP) ## Run the Python tests under python -X dev with the debug memory allocator
	PYTHONMALLOC=debug $(PYTHON) -X dev -m pytest -q --ignore=tests/test_packaging.py $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then rc=0; fi; exit $$rc

.PHONY: test-versions
test-versions: $(DEPS_STAMP) ## Build the abi3 wheel once; run the parser/accumulator tests on CPython 3.10-3.13
	$(PYTHON) scripts/test_versions.py

# The newest SDK and framework versions the index has (requirements-newest.txt, installed over
# requirements-dev.txt) in their own virtualenv, for the test files that talk to them.
VENV_NEWEST := .venv-newest
NEWEST_STAMP := $(VENV_NEWEST)/.deps-installed
NEWEST_TESTS := tests/test_accelerate_openai.py tests/test_accelerate_openai_responses.py tests/test_providers_clients.py

$(NEWEST_STAMP): requirements-dev.txt requirements-newest.txt
	python3 -m venv $(VENV_NEWEST)
	$(VENV_NEWEST)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(VENV_NEWEST)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-newest.txt
	touch $@

.PHONY: test-newest
test-newest: $(NEWEST_STAMP) $(RUST_SOURCES) ## Run the SDK-facing tests against the newest SDK versions (.venv-newest)
	VIRTUAL_ENV=$(abspath $(VENV_NEWEST)) $(VENV_NEWEST)/bin/maturin develop --release --quiet
	$(VENV_NEWEST)/bin/python -m pytest -q $(NEWEST_TESTS) $(PYTEST_ARGS)

FUZZ_SECONDS ?= 60
CARGO_FUZZ_VERSION := 0.13.2

.PHONY: fuzz
fuzz: $(BUILD_STAMP) ## Run each fuzz target FUZZ_SECONDS s (default 60); print executions and crashes
	@command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz --version $(CARGO_FUZZ_VERSION)
	fuzz/run.sh $(FUZZ_SECONDS) $(PYTHON)

.PHONY: wheel
wheel: $(DEPS_STAMP) ## Build the abi3 wheel and the sdist into dist/; install each into a clean venv
	rm -rf dist
	$(VENV)/bin/maturin build --release --out dist
	$(VENV)/bin/maturin sdist --out dist
	TOOLJSON_DIST=dist $(PYTHON) -m pytest -q tests/test_packaging.py

.PHONY: lint
lint: $(BUILD_STAMP) ## clippy (pedantic), rustfmt, the stub against the module, mypy --strict example
	cargo fmt --check
	cargo clippy --all-targets --features python -- -D warnings
	$(PYTHON) -m mypy.stubtest tooljson._native
	$(PYTHON) -m mypy --strict examples/typed_usage.py python/tooljson

.PHONY: clean
clean: ## Remove the build and the virtualenv
	rm -rf $(VENV) $(VENV_NEWEST) target
