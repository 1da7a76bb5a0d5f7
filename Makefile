# Two entry points a fresh machine needs: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench schema screenshots clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The main job: the terminal editor on the demo account of the embedded sandbox (no account, no network).
run: $(STAMP)
	$(BIN)/tenantdeck edit --demo

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests bench

bench: $(STAMP)
	$(BIN)/python bench/validate.py
	$(BIN)/python bench/edit.py
	$(BIN)/python bench/pull.py
	$(BIN)/python bench/push.py
	$(BIN)/python bench/tui_startup.py
	$(BIN)/python bench/tui_latency.py

# SVG pictures of every screen at 100x32 for the README, from the snapshot tests' fixture drafts.
screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

schema: $(STAMP)
	$(BIN)/tenantdeck schema > src/tenantdeck/schema/draft.schema.json

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
