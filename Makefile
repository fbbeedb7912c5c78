# tablewire: `make serve` and `make test` set up .venv on first use.
PYTHON ?= python3
VENV ?= .venv
HOST ?= 127.0.0.1
PORT ?= 8000
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: serve test lint check bench bench-load clean

$(STAMP): pyproject.toml setup.py protocol/_speedups.c
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "tablewire needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

## serve: run the server with the in-memory store (HOST=127.0.0.1 PORT=8000)
serve: $(STAMP)
	$(BIN)/tablewire serve --host $(HOST) --port $(PORT)

## test: run the whole test suite
test: $(STAMP)
	$(BIN)/pytest

## lint: ruff (lint and format) and mypy
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## check: lint, then test
check: lint test

## bench: print the benchmark figures
bench: $(STAMP)
	$(BIN)/python benchmarks/engine_throughput.py
	$(BIN)/python benchmarks/intent_cost.py
	$(BIN)/python benchmarks/store_latency.py
	$(BIN)/python benchmarks/bot_winrate.py
	$(BIN)/python benchmarks/bot_winrate.py --game crystal-palace

## bench-load: the turn-relay matrix, spectator fan-out and connection memory (~10 min)
bench-load: $(STAMP)
	$(BIN)/python benchmarks/turn_relay_matrix.py
	$(BIN)/python benchmarks/fanout.py
	$(BIN)/python benchmarks/connection_memory.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info
