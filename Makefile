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

.PHONY: lint
lint: $(DEPS_STAMP) ## cargo clippy (pedantic) and rustfmt check
	cargo fmt --check
	cargo clippy --all-targets --features python -- -D warnings

.PHONY: clean
clean: ## Remove the build and the virtualenv
	rm -rf $(VENV) target
