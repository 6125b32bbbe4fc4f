# vhuman: `make demo` runs the main job, `make test` the tests; both set up .venv first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DEMO_DIR ?= demo-out

.PHONY: install demo test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all,dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/vhuman demo -o $(DEMO_DIR)

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

test: $(STAMP) lint
	$(BIN)/python -m pytest -n 2 -q

# Every benchmark in one run, one table of headline figures beside their peers (outputs in out/bench).
bench: $(STAMP)
	$(BIN)/python benchmarks/table.py

clean:
	rm -rf $(VENV) $(DEMO_DIR) .pytest_cache .ruff_cache .hypothesis
