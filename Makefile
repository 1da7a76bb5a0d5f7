# Two entry points a fresh machine needs: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The exact versions the suite passes with (pyproject keeps ranges); `make lock` moves them to the newest releases.
LOCK := .ci/constraints.txt

.PHONY: run test lint bench schema screenshots clean lock drift

# The venv and the locked versions: with uv where it can be had, else pip (scripts/install.sh says why).
$(STAMP): pyproject.toml $(LOCK) scripts/install.sh
	bash scripts/install.sh $(PY) $(VENV) $(LOCK)
	touch $(STAMP)

# The main job: the terminal editor on the demo account of the embedded sandbox (no account, no network).
run: $(STAMP)
	$(BIN)/tenantdeck edit --demo

# In parallel (pytest-xdist) and in random order (pytest-randomly prints the seed to replay). Three workers per
# core: a worker waits on loopback servers, real processes and the editor's idle frames, so with 4 workers on 2
# cores the cores were busy 85% of the test phase, with 6 96% (4 min 16 s against 4 min 24-48 s from a fresh
# clone; docs/benchmarks.md, "The suite"). More workers cost more only in collection, which every worker repeats.
# One test at a time to each worker as it asks (--maxschedchunk 1): xdist's default sends each worker a run of ~100
# consecutive tests first, so the slow tests, which tests/conftest.py puts first, all went to one worker.
WORKERS ?= $(shell echo $$(( 3 * $$(nproc 2>/dev/null || echo 1) )))
# ARGS: more pytest arguments, as `make test ARGS=--randomly-seed=N` to replay an order.
test: $(STAMP)
	$(BIN)/python -m pytest -n $(WORKERS) --maxschedchunk 1 $(ARGS)

# Re-resolve the newest releases pyproject.toml allows, in a scratch venv, and pin them in $(LOCK). Run the suite
# after it (`make test`) and commit the lock with the fixes it needed.
lock:
	rm -rf .venv-lock
	$(PY) -m venv .venv-lock
	.venv-lock/bin/python -m pip install --quiet --upgrade pip
	.venv-lock/bin/python -m pip install --quiet -e '.[test,dev]'
	printf '# The versions the suite passes with; `make lock` regenerates this from the newest releases.\n' > $(LOCK)
	.venv-lock/bin/python -m pip freeze --all --exclude-editable | grep -v -i -e '^tenantdeck' -e '^pip==' >> $(LOCK)
	rm -rf .venv-lock

# The suite against the newest releases and against the lowest versions pyproject.toml declares: drift is
# reported (versions that differ from the lock, failures), never a failure of this target.
drift:
	bash scripts/drift.sh newest
	bash scripts/drift.sh lowest

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
	rm -rf $(VENV) .venv-lock .venv-newest .venv-lowest build *.egg-info .pytest_cache
