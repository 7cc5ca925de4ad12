# Every target creates .venv on first use, from pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The dev install's own mark: a .venv made by the README's runtime install (pip install .)
# has bin/memstore but no test tools, and must not pass for a dev one (found by review).
DEV := $(VENV)/.dev-installed
DEMO_VENV := .venv-demo
DEMO_DB := $(DEMO_VENV)/demo/memory.sqlite3
SPEAKERS := --speaker "Diego=user" --speaker "Morgan=assistant" --speaker "System=system"
DEMO := $(DEMO_VENV)/bin/memstore --database $(DEMO_DB) --format text

.PHONY: demo test lint bench guard eval clean

# Each venv also compiles memstore's modules, as a regular pip install does: where
# PYTHONDONTWRITEBYTECODE is set, an editable install would compile them on every start.
$(DEV): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m compileall -q memstore
	touch $@

# The demo needs only the runtime: its own venv, without the dev tools.
$(DEMO_VENV)/bin/memstore: pyproject.toml
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install --quiet -e .
	$(DEMO_VENV)/bin/python -m compileall -q memstore
	touch $@

demo: $(DEMO_VENV)/bin/memstore
	rm -rf $(DEMO_VENV)/demo
	@echo "== import the example daily logs"
	$(DEMO) import examples/logs $(SPEAKERS) --include-tail
	@echo "== remember two facts (each under its own key)"
	$(DEMO) remember "Diego toma el café sin azúcar." --category preference --key cafe
	$(DEMO) remember "Diego is planting a blue garden." --category project --key garden
	@echo "== recall: memories first, then conversations (matched words in bold at a terminal)"
	$(DEMO) recall "café"
	$(DEMO) recall "garden decide" --mode all
	$(DEMO) recall "jardín azul" --mode phrase
	@echo "== memories, sessions, check"
	$(DEMO) memories
	$(DEMO) sessions
	$(DEMO) check
	@echo
	@echo "The demo database is $(abspath $(DEMO_DB))."
	@echo "Try next:  $(DEMO_VENV)/bin/memstore --database $(DEMO_DB) instances garden"
	@echo "           $(DEMO_VENV)/bin/memstore --database $(DEMO_DB) diary 2026-10-06"
	@echo "           add --json to any command for the JSON of the contract."

# One worker per core, each taking whole test modules (their module fixtures are built once):
# on a slow 2-core CI machine the suite took 513 s in one process.
test: $(DEV)
	$(BIN)/python -m pytest -n auto --dist loadscope

lint: $(DEV)
	$(BIN)/ruff check memstore tests alembic bench eval
	$(BIN)/ruff format --check memstore tests alembic bench eval
	$(BIN)/mypy
	$(BIN)/mypy eval

bench: $(DEV)
	$(BIN)/python -m bench.run $(BENCH_ARGS)
	$(BIN)/python -m bench.hostile
	$(BIN)/python -m bench.guard

# The credential guard's catch and refusal rates and its cost in remember
guard: $(DEV)
	$(BIN)/python -m bench.guard

# LoCoMo recall@8 of memstore against plain bm25 (needs ../shared beside the repository)
eval: $(DEV)
	$(BIN)/python eval/locomo.py $(EVAL_ARGS)

clean:
	rm -rf $(VENV) $(DEMO_VENV) build dist *.egg-info
