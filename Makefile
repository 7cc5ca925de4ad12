# Every target creates .venv on first use, from pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_DB := $(VENV)/demo/memory.sqlite3
SPEAKERS := --speaker "Diego=user" --speaker "Morgan=assistant" --speaker "System=system"

.PHONY: demo test lint bench guard eval clean

$(BIN)/memstore: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(BIN)/memstore
	rm -rf $(VENV)/demo
	$(BIN)/memstore --database $(DEMO_DB) import examples/logs $(SPEAKERS) --include-tail
	$(BIN)/memstore --database $(DEMO_DB) recall "café"
	$(BIN)/memstore --database $(DEMO_DB) recall "jardín azul" --mode phrase
	$(BIN)/memstore --database $(DEMO_DB) recall "garden decide" --mode all --role user
	$(BIN)/memstore --database $(DEMO_DB) check

test: $(BIN)/memstore
	$(BIN)/python -m pytest

lint: $(BIN)/memstore
	$(BIN)/ruff check memstore tests alembic bench eval
	$(BIN)/ruff format --check memstore tests alembic bench eval
	$(BIN)/mypy
	$(BIN)/mypy eval

bench: $(BIN)/memstore
	$(BIN)/python -m bench.run $(BENCH_ARGS)
	$(BIN)/python -m bench.hostile
	$(BIN)/python -m bench.guard

# The credential guard's catch and refusal rates and its cost in remember
guard: $(BIN)/memstore
	$(BIN)/python -m bench.guard

# LoCoMo recall@8 of memstore against plain bm25 (needs ../shared beside the repository)
eval: $(BIN)/memstore
	$(BIN)/python eval/locomo.py $(EVAL_ARGS)

clean:
	rm -rf $(VENV) build dist *.egg-info
