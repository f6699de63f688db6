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
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

$(PYTHON):
	python3 -m venv $(VENV)

$(DEPS_STAMP): requirements-dev.txt | $(PYTHON)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

$(BUILD_STAMP): $(DEPS_STAMP) $(RUST_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release --quiet
	touch $@

# What is published: the manylinux2014 (glibc 2.17) wheel, linked by zig, and the sdist, built once
# into dist/ by scripts/build_dist.py (auditwheel checks each wheel's tag) for make test, make wheel
# and make test-versions alike. Whether that is one abi3 wheel or one wheel per CPython follows the
# maturin features in pyproject.toml alone (the crate's abi3 feature).
DIST := dist
DIST_STAMP := $(DIST)/.built
PACKAGE_SOURCES := $(shell find python -type f -not -path '*/__pycache__/*' -not -name '*.so') README.md LICENSE

$(DIST_STAMP): $(DEPS_STAMP) $(RUST_SOURCES) $(PACKAGE_SOURCES) scripts/build_dist.py
	$(PYTHON) scripts/build_dist.py $(DIST)
	touch $@

.PHONY: build
build: $(BUILD_STAMP) ## Build the extension (release) into .venv

.PHONY: demo
demo: $(BUILD_STAMP) ## Run the demo on the embedded default stream (no key, no network)
	$(PYTHON) -m tooljson demo

# The core tests run twice: as built here, and with the SSE2 string scan switched off (src/lexical.rs),
# the byte loop that targets without SSE2 run, in a target directory of its own. The Python tests
# check the dist/ built above (tests/test_packaging.py) instead of building a wheel of their own.
.PHONY: test
test: $(BUILD_STAMP) $(DIST_STAMP) ## Rust core tests (no libpython; also without SSE2), the Python tests, dist/ checked
	cargo test --no-default-features --quiet
	RUSTFLAGS="--cfg tooljson_portable" CARGO_TARGET_DIR=target/portable cargo test --no-default-features --quiet
	TOOLJSON_DIST=$(DIST) $(PYTHON) -m pytest -q $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; rc=0; fi; exit $$rc

.PHONY: bench
bench: $(BUILD_STAMP) ## Run the benchmarks side by side
	$(PYTHON) -m pytest benches -q --benchmark-enable --benchmark-columns=median,iqr,rounds --benchmark-sort=name $(PYTEST_ARGS)

.PHONY: bench-report
bench-report: $(BUILD_STAMP) ## Run the benchmarks, write benches/REPORT.md and benches/scaling.png
	$(PYTHON) benches/report.py --json .benchmarks/latest.json $(if $(PYTEST_ARGS),-- $(PYTEST_ARGS))

.PHONY: test-dev
# The tests only: the benchmarks' one untimed run each (in make test) checks their harness, and
# drives the extension through paths the tests cover. The sdk_quadratic tests spend their time in an
# SDK helper's re-parse per chunk, not in tooljson: they too run once, in make test. The proxy's load and fault tests time whole
# processes under load and read no native memory of their own: they run once, in make test, not
# again under the slow debug allocator.
test-dev: $(BUILD_STAMP) ## Run the Python tests under python -X dev with the debug memory allocator
	PYTHONMALLOC=debug $(PYTHON) -X dev -m pytest -q tests -m "not sdk_quadratic" --ignore=tests/test_packaging.py \
		--ignore=tests/test_proxy_load.py --ignore=tests/test_proxy_faults.py $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then rc=0; fi; exit $$rc

# The newest versions the index has of the SDKs and frameworks (requirements-newest.txt, installed
# over requirements-dev.txt into .venv-newest) and the test files that talk to them.
NEWEST_VENV := .venv-newest
NEWEST_PYTHON := $(NEWEST_VENV)/bin/python
NEWEST_STAMP := $(NEWEST_VENV)/.installed
NEWEST_TESTS := tests/test_accelerate_runner.py tests/test_standin_threads.py tests/test_accelerate_client.py \
	tests/test_accelerate_standin.py tests/test_accelerate_events.py \
	tests/test_frameworks.py tests/test_framework_adapters.py \
	tests/test_accelerate_openai.py tests/test_accelerate_openai_responses.py tests/test_providers_clients.py \
	tests/test_gemini_feed.py tests/test_gemini_standin.py tests/test_openai_agents.py tests/test_litellm.py

# tooljson itself is dist/'s wheel (no second build), so these tests also run what is published. The
# sdk_quadratic tests (100 KB streams timing the SDK helper's own re-parse) add no version coverage.
$(NEWEST_STAMP): requirements-dev.txt requirements-newest.txt $(DIST_STAMP)
	test -x $(NEWEST_PYTHON) || python3 -m venv $(NEWEST_VENV)
	$(NEWEST_PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(NEWEST_PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-newest.txt
	$(NEWEST_PYTHON) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
		--no-index --only-binary :all: --find-links $(DIST) tooljson
	touch $@

.PHONY: test-newest
test-newest: $(NEWEST_STAMP) ## Run the SDK-facing tests against the newest SDK versions (.venv-newest)
	$(NEWEST_PYTHON) -m pytest -q -m "not sdk_quadratic" $(NEWEST_TESTS) $(PYTEST_ARGS)

# instructor pins jiter < 0.15 and so an older openai, which requirements-dev.txt's cannot meet: its
# tests and benchmark run in a virtualenv of their own (requirements-instructor.txt), against dist/'s
# wheel. In .venv the instructor test files skip (instructor is not there).
INSTRUCTOR_VENV := .venv-instructor
INSTRUCTOR_PYTHON := $(INSTRUCTOR_VENV)/bin/python
INSTRUCTOR_STAMP := $(INSTRUCTOR_VENV)/.installed
INSTRUCTOR_TESTS := tests/test_instructor_partials.py tests/test_instructor_clients.py benches/bench_instructor.py

$(INSTRUCTOR_STAMP): requirements-instructor.txt $(DIST_STAMP)
	test -x $(INSTRUCTOR_PYTHON) || python3 -m venv $(INSTRUCTOR_VENV)
	$(INSTRUCTOR_PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-instructor.txt
	$(INSTRUCTOR_PYTHON) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
		--no-index --only-binary :all: --find-links $(DIST) tooljson
	touch $@

.PHONY: test-instructor
test-instructor: $(INSTRUCTOR_STAMP) ## Run the instructor integration's tests in .venv-instructor (instructor 1.17)
	$(INSTRUCTOR_PYTHON) -m pytest -q $(INSTRUCTOR_TESTS) $(PYTEST_ARGS)

.PHONY: test-versions
test-versions: $(DIST_STAMP) ## Install dist/'s wheel on CPython 3.10-3.13 (pyenv); run the parser/accumulator tests
	$(PYTHON) scripts/test_versions.py $(DIST)

# The stable-ABI build that the per-interpreter wheels replace, kept compiled (make lint) and tested:
# its manylinux wheel, built into dist-abi3/, on the newest CPython with the test-versions tests.
ABI3_DIST := dist-abi3
ABI3_PYTHON ?= $(lastword $(sort $(wildcard $(HOME)/.pyenv/versions/3.13.*/bin/python3)))

.PHONY: test-abi3
test-abi3: $(DEPS_STAMP) ## Build the abi3 wheel (dist-abi3/) and run the test-versions tests on it (CPython 3.13)
	$(PYTHON) scripts/build_dist.py --abi3 $(ABI3_DIST)
	TOOLJSON_PYTHONS=$(ABI3_PYTHON) $(PYTHON) scripts/test_versions.py $(ABI3_DIST)

FUZZ_SECONDS ?= 60
CARGO_FUZZ_VERSION := 0.13.2

.PHONY: fuzz
fuzz: $(BUILD_STAMP) ## Run each fuzz target FUZZ_SECONDS s (default 60); print executions and crashes
	@command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz --version $(CARGO_FUZZ_VERSION)
	fuzz/run.sh $(FUZZ_SECONDS) $(PYTHON)

.PHONY: wheel
wheel: $(BUILD_STAMP) $(DIST_STAMP) ## The manylinux wheel and the sdist in dist/; each installed into a clean venv
	TOOLJSON_DIST=$(DIST) $(PYTHON) -m pytest -q tests/test_packaging.py

.PHONY: docs
docs: $(DEPS_STAMP) ## Build the documentation site into site/ (mkdocs, strict: any warning fails)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

RUFF_PATHS := python tests benches scripts examples

.PHONY: format
format: $(DEPS_STAMP) ## Format the Python side (ruff format) and apply ruff's safe fixes
	$(VENV)/bin/ruff check --fix $(RUFF_PATHS)
	$(VENV)/bin/ruff format $(RUFF_PATHS)

.PHONY: lint
lint: $(BUILD_STAMP) ## ruff (check, format), clippy (pedantic), rustfmt, the stub against the module, mypy --strict
	$(VENV)/bin/ruff check $(RUFF_PATHS)
	$(VENV)/bin/ruff format --check $(RUFF_PATHS)
	cargo fmt --check
	cargo clippy --all-targets --features python -- -D warnings
	cargo clippy --all-targets --features abi3 -- -D warnings
	$(PYTHON) -m mypy.stubtest tooljson._native
	$(PYTHON) -m mypy --strict examples/typed_usage.py python/tooljson

.PHONY: clean
clean: ## Remove the build, the virtualenvs, dist/ and the built site
	rm -rf $(VENV) $(NEWEST_VENV) $(INSTRUCTOR_VENV) target $(DIST) $(ABI3_DIST) site
