# tablewire: `make serve` and `make test` set up .venv on first use.
PYTHON ?= python3
VENV ?= .venv
HOST ?= 127.0.0.1
PORT ?= 8000
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --quiet --disable-pip-version-check
DEPS := $(VENV)/.installed-stamp
BUILT := $(VENV)/.built-stamp
# The modules compiled with mypyc: pyproject.toml's one list, [tool.tablewire] native.
NATIVE := $(shell $(PYTHON) -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["tool"]["tablewire"]["native"])')

.PHONY: serve test test-slow test-all lint check bench bench-load pure clean

$(DEPS): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "tablewire needs Python 3.11 or newer")'
	@pkg-config --exists icu-i18n 2>/dev/null || { echo "tablewire needs ICU's development files, pkg-config and a C++ compiler to build PyICU (Debian, Ubuntu: apt-get install libicu-dev pkg-config g++; Homebrew: brew install icu4c pkg-config)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PIP) install 'setuptools>=70.1' wheel
	$(PIP) install -e '.[dev]'
	@touch $@

# The compiled parts: the C diff, and setup.py's NATIVE modules through mypyc (the
# .venv's mypy), again whenever one of their sources changes. Without a C compiler the
# source runs. The compiled files are touched: server/native.py dates the build by them.
$(BUILT): $(DEPS) setup.py pyproject.toml protocol/_speedups.c $(NATIVE)
	@find server protocol engines -name '*.so' ! -name '_speedups*' -delete
	$(PIP) install --no-build-isolation --no-deps -e .
	@find server protocol engines -name '*.so' -exec touch {} +
	@touch $@

## serve: run the server with the in-memory store (HOST=127.0.0.1 PORT=8000)
serve: $(BUILT)
	$(BIN)/tablewire serve --host $(HOST) --port $(PORT)

## test: run the test suite on TEST_JOBS parallel workers (pytest-xdist), all but the
## slow tests marked `browser`, `load` and `soak`, which test-slow runs. A worker that
## runs out of tests takes some of a busy one's (worksteal): with xdist's default split
## the last minute was one worker finishing its share of the long tests
TEST_JOBS ?= 4
XDIST := -n $(TEST_JOBS) --dist worksteal
FAST := not browser and not load and not soak
test: $(BUILT)
	$(BIN)/pytest $(XDIST) -m "$(FAST)"

## test-slow: the marked tests: Chromium (`browser`) and the long random runs (`soak`) in
## parallel, then the `load` tests alone, one after the other (hundreds of rooms beside
## Chromium and the other workers starve their processes: moves refused, leases lost)
test-slow: $(BUILT)
	$(BIN)/pytest $(XDIST) -m "(browser or soak) and not load"
	$(BIN)/pytest -m load

## test-all: every test (what CI runs): test, then test-slow
test-all: test test-slow

## pure: run the Python source of the compiled modules (until the next make test or serve)
pure:
	find server protocol engines -name '*.so' ! -name '_speedups*' -delete
	rm -f $(BUILT)

## lint: ruff (lint and format) and mypy
lint: $(DEPS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## check: lint, then every test (what CI runs)
check: lint test-all

## bench: print the benchmark figures
bench: $(BUILT)
	$(BIN)/python benchmarks/engine_throughput.py
	$(BIN)/python benchmarks/intent_cost.py
	$(BIN)/python benchmarks/store_latency.py
	$(BIN)/python benchmarks/bot_winrate.py
	$(BIN)/python benchmarks/bot_winrate.py --game crystal-palace

## bench-load: the turn-relay matrix, spectator fan-out and connection memory (~10 min)
bench-load: $(BUILT)
	$(BIN)/python benchmarks/turn_relay_matrix.py
	$(BIN)/python benchmarks/fanout.py
	$(BIN)/python benchmarks/connection_memory.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info
