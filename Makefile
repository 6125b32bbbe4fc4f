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

# Every benchmark the README quotes, each with its defaults (witnesses.py is the suite's tool).
BENCHMARKS := $(filter-out benchmarks/witnesses.py,$(wildcard benchmarks/*.py))

bench: $(STAMP)
	@for script in $(BENCHMARKS); do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) $(DEMO_DIR) .pytest_cache .ruff_cache .hypothesis
