# Two commands for a newcomer: `make demo` (set up + run the offline example)
# and `make test` (set up + run the test suite). CI runs `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?= -q

.PHONY: setup demo test lint

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml setup.py $(wildcard collector/decode/_otlp_*.[ch])
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

demo: setup
	$(VENV)/bin/tracesim run examples/customer_service/config.yaml

test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

lint: setup
	$(VENV)/bin/ruff check .
