# Targets named in the README. Every target creates the virtual environment first.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: chat test lint bench fuzz clean constraints

# A line per step and pip's own progress (each package as it is fetched and built): on a
# loaded 2-core machine the first install takes minutes (README, "Set-up"), never in silence.
$(STAMP): pyproject.toml
	@echo "== 1/3 creating the virtual environment $(VENV)"
	python3 -m venv $(VENV)
	@echo "== 2/3 updating pip, setuptools and wheel"
	$(PY) -m pip install --progress-bar on -U pip "setuptools>=69" wheel
	@echo "== 3/3 installing gpu-advisor and its dependencies (the longest step; pip names each package)"
	$(PY) -m pip install --progress-bar on -e ".[dev]"
	@echo "== installed"
	touch $(STAMP)

chat: $(STAMP)
	@echo "== starting the terminal chat (/quit or Ctrl-D to leave)"
	$(VENV)/bin/gpu-advisor chat

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

test: lint
	$(PY) -m pytest -n auto --maxprocesses 4

# Each prints its measurement beside its baseline from the same run (a bare interpreter, the
# shipped catalog, SQLite, ...) and its goal; tests/test_benches.py runs each with --tiny.
# Every bench runs even when an earlier one misses its goal (or fails): the verdicts are listed
# together at the end, and the target fails then if any bench did.
BENCHES := engine_bench startup_bench catalog_bench bot_bench storage_bench scale_bench overload_bench
BENCHES += chart_bench

bench: $(STAMP)
	@verdicts=""; failed=0; \
	for b in $(BENCHES); do \
		echo "== bench.$$b"; \
		if $(PY) -m bench.$$b; then verdict="met"; else verdict="MISSED (exit $$?)"; failed=1; fi; \
		verdicts="$$verdicts\n  bench.$$b: $$verdict"; \
	done; \
	printf "== every bench's verdict:$$verdicts\n"; \
	exit $$failed

# Every entry point with generated input (Hypothesis) and the OpenAPI document (schemathesis),
# at a budget the test suite cannot afford: zero 5xx is the bar.
fuzz: $(STAMP)
	FUZZ_EXAMPLES=2000 $(PY) -m pytest -q -p no:randomly tests/test_fuzz_entry_points.py \
		tests/test_web_api.py -k "fuzz or schemathesis or no_5xx or never_get"

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache

constraints: $(STAMP)
	$(PY) deploy/pin_constraints.py > constraints.txt
