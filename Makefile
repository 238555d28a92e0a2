# Corazones: `make run` serves the game, `make test` installs what the tests need and runs them all.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
FLASK := $(VENV)/bin/flask --app app
TEST_DATABASE_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/test
# Test processes (pytest-xdist), one per core here; each file runs whole in one of them, on that
# process's own database. TEST_PROCS=0 runs the suite in one process.
TEST_PROCS ?= 2
PYTEST := $(PY) -m pytest -n $(TEST_PROCS) --dist loadfile

.PHONY: constraints run serve robots-compiled test test-sqlite test-postgres lint chromium bench-rules bench-robots bench-deal bench-load bench-mismesas bench-action bench-live clean

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[test]'
	touch $@

# constraints.txt anew: the newest releases pyproject.toml allows, in a venv of their own.
constraints:
	rm -rf .venv-latest
	$(PYTHON) -m venv .venv-latest
	.venv-latest/bin/pip install -q -e '.[test]'
	{ grep '^#' constraints.txt; .venv-latest/bin/pip freeze --exclude-editable | grep -iv '^corazones'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf .venv-latest

venv: $(VENV)/.installed

run: $(VENV)/.installed
	$(FLASK) setup
	$(FLASK) run --host 127.0.0.1 --port 5000

# Production shape on this machine: the Procfile (gunicorn web workers, one robot process, exactly
# one scheduler) run by honcho, on PostgreSQL (database `corazones`, made if missing) and Redis.
# DATABASE_URL, REDIS_URL, PORT, GUNICORN_WORKERS, ROBOT_PROCESSES override; docs/DEPLOY.md says
# how to run the same processes under systemd.
serve: $(VENV)/.installed robots-compiled
	$(PY) -m deploy.serve

# The robots' search compiled with mypyc beside its sources (deploy/compile_robots.py): the same
# decisions about seven times faster, so Difícil searches six times as far. Without a C compiler the pure-Python modules serve (the
# build says so and make goes on). `python -m deploy.compile_robots --clean` removes it.
robots-compiled: $(VENV)/.installed
	-$(PY) -m deploy.compile_robots

# Debian's Chromium for the browser tests (a test tool's own browser download fails here).
chromium:
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-dejavu-core >/dev/null; \
	  else \
	    echo "Chromium is missing: run 'sudo apt-get install chromium chromium-driver'"; exit 1; \
	  fi; \
	fi

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --strict rules robots tables deploy bench app.py serve.py
	$(VENV)/bin/lint-imports

# The whole suite on SQLite, then the database tests again on PostgreSQL.
# pytest exits 5 when no test ran: make treats that, like any failure, as an error.
test: $(VENV)/.installed chromium lint test-sqlite test-postgres

test-sqlite: $(VENV)/.installed
	$(PYTEST)

test-postgres: $(VENV)/.installed
	DATABASE_URL=$(TEST_DATABASE_URL) $(PYTEST) -m db

bench-rules: $(VENV)/.installed
	$(PY) bench/rules_bench.py

# The robots' arena (bench/arena.py): the levels against Básico, then Difícil in the hard fields
# (moon-shooters, dificil_v1, Básico; head to head with dificil_v1). Ends with one JSON line.
# Long (an hour or more): ARENA_* variables size it, e.g. ARENA_HARD=40 ARENA_HARD_SEATS=1.
bench-robots: $(VENV)/.installed robots-compiled
	nice -n 19 $(PY) bench/arena.py

# Chi-square uniformity of the checkable deal (docs/FAIR_DEAL.md): 200,000 deals per scenario.
bench-deal: $(VENV)/.installed
	$(PY) bench/deal_stats.py

# The load benchmark (docs/RELIABILITY.md): starts the stack itself, SQLite then PostgreSQL,
# 200 tables at a live pace (5-15 s per decision, judged against the targets), then both modes
# again at a stress pace (1-3 s, reported apart); ~15 minutes. LOAD_ARGS passes options, e.g.
# make bench-load LOAD_ARGS="--tables 20 --duration 20 --stress ''".
bench-load: $(VENV)/.installed robots-compiled
	$(PY) bench/load.py $(LOAD_ARGS)

# Mis mesas with 200 tables for one player: p50/p95 server ms of the page and its API, on SQLite
# and PostgreSQL (TEST_DATABASE_URL's server, a fresh schema); the last line is JSON.
bench-mismesas: $(VENV)/.installed
	BENCH_DATABASE_URL=$(TEST_DATABASE_URL) nice -n 19 $(PY) bench/mis_mesas.py

# One game action's CPU in the web process's own request path (bench/action_cpu.py): whole games of
# four people through the test client, SQLite then PostgreSQL (TEST_DATABASE_URL's server, a fresh
# schema); ~1 minute. ACTION_ARGS passes options (--games, --profile FILE). The last line is JSON.
bench-action: $(VENV)/.installed
	BENCH_DATABASE_URL=$(TEST_DATABASE_URL) $(PY) bench/action_cpu.py $(ACTION_ARGS)

# Jugar en vivo (bench/live_queue.py): starts the stack itself (PostgreSQL, TEST_DATABASE_URL's
# server, a fresh schema), 400 players arriving within 10 s; the time until each is seated (p50,
# p95) and the rating spread of the tables formed. LIVE_ARGS passes options (--db sqlite, ...).
# The last line is JSON.
bench-live: $(VENV)/.installed
	BENCH_DATABASE_URL=$(TEST_DATABASE_URL) nice -n 19 $(PY) bench/live_queue.py $(LIVE_ARGS)

clean:
	-$(PY) -m deploy.compile_robots --clean
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
