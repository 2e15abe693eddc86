"""Where the write ratios go: cost ladders from the bare SQL to remember and to a turn.

    python3 bench/floor.py            # 1,000 agents x 100 entries, 15 s runs, 2 rounds
    python3 bench/floor.py --quick    # smoke run, about two minutes

The memory benchmark compares ``remember`` with the bare statement it must do
and finds it at 0.2x-0.4x. This script measures the rungs in between, on the
same data and server, each with pgbench (1 and 8 clients, interleaved rounds),
so the gap can be split into what each layer costs:

1. ``bare``: the bare remember of ``bench/memory.py`` (entry and revision
   insert, one statement), the baseline of the 0.5x target;
2. ``bare in a function``: the same statement inside a SECURITY DEFINER
   PL/pgSQL function with a pinned search_path, called by the runtime role
   (what any function API costs);
3. ``+ binding``: that function also calls ``agent_state._bind(agent)`` (the
   perspective check every product function makes);
4. ``remember, triggers and keys off``: the product function on the product
   tables (evidence, revision and entry rows, their indexes, CHECKs and RLS)
   with every trigger of the three memory tables disabled, foreign keys
   included: the floor of the product's own code and table shapes;
5. ``remember, keys on``: foreign keys enabled, the product's own triggers
   (audit stamps, the evidence guard, the commit-time consistency check) still
   off;
6. ``remember``: everything on, as shipped.

The amend ladder, on the same data: the bare amend of ``bench/memory.py`` (the
entry's update and the revision's insert, one statement), the same in a bound
function, then ``amend`` with the memory tables' triggers and keys off, keys on,
and as shipped.

Rungs 4 and 5 switch off what SPEC requires ("invariants are enforced by the
database"); they exist only here, to price each guarantee. Ratios are against
rung 1, like the memory benchmark's.

The turn ladder (fixtures of ``bench/turn.py``, one statement per turn):

1. ``bare``: the bare turn of ``bench/turn.py`` (five inserts and the budget
   update in one statement), the baseline of the 0.4x target (0.6x for
   ``record_turn``);
2. ``bare as five bound calls``: the same writes split the way SPEC's API
   splits them (snapshot, model call, tool call, tool result, checkpoint), each
   a SECURITY DEFINER function with a pinned search_path that first calls
   ``agent_state._bind``, chained in one statement: the least any
   implementation of the five-call API can cost;
3. ``five bound calls on the product tables, triggers and keys off``: those five bound
   calls writing the product's tables instead (ten rows, with their indexes and
   CHECKs; the derived values computed inline, nothing checked), with the
   tables' triggers and keys disabled: the table shapes' cost;
4. ``turn, triggers and keys off``: the product's five functions (which derive
   what the triggers would for their own writes) with every trigger of the
   turn's tables disabled, foreign keys included: the product's own code;
5. ``turn, foreign-key checks off``: only the foreign-key checks of the rows a
   turn writes switched off;
6. ``turn``: the product's five functions, as shipped;

and the same for the one call:

7. ``bare as one bound call``: the bare turn's statement inside one SECURITY
   DEFINER function that first calls ``agent_state._bind``: the least any
   implementation of ``record_turn`` can cost;
8. ``one bound call on the product tables, triggers and keys off``: that statement
   writing the product's tables (ten rows where the bare turn writes six: the
   snapshot's memory and message sources are rows; the derived values computed
   inline, nothing checked), their triggers and keys disabled: what the table
   shapes cost before any of the product's code;
9. ``record_turn, triggers and keys off``: the product's ``record_turn`` (its
   direct path derives what the triggers would: the charge, the prompt's hash,
   the checkpoint number) with every trigger of the turn's tables disabled,
   foreign keys included: the product's table shapes (ten rows, their indexes,
   CHECKs and RLS) and its own code;
10. ``record_turn, keys on``: foreign keys enabled, the product's triggers off;
11. ``record_turn``: as shipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import turn
from common import (
    RUNTIME_ROLE,
    Server,
    log,
    pgbench,
    table,
    timed,
)
from memory import (
    AMEND_BARE,
    AMEND_BODY,
    AMEND_HEAD,
    AMEND_PRODUCT,
    REMEMBER_BARE,
    REMEMBER_BODY,
    REMEMBER_PRODUCT,
    bare_shapes,
    build_targets,
    count_amends,
    load,
    setup,
)

DB = "bench_floor"
TURN_DB = "bench_floor_turn"
MEMORY_TABLES = ("memory_evidence", "memory_revisions", "memory_entries")
# The targets against the bare rung: remember 0.5x, a turn 0.4x (record_turn 0.6x).
TARGETS = {"remember": 0.5, "turn": 0.4}

# Rungs 2 and 3: the bare statement of rung 1 wrapped in a function, without and
# with the product's perspective binding. Owned by the superuser running the
# benchmark, like the product's functions are owned by their installer.
WRAPPERS = """
CREATE SCHEMA IF NOT EXISTS bench_floor;
GRANT USAGE ON SCHEMA bench_floor TO {runtime};
CREATE FUNCTION bench_floor.remember_bare(agent uuid, body text, actor uuid, msg uuid, bind boolean)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    IF bind THEN
        PERFORM agent_state._bind(agent);
    END IF;
    RETURN QUERY
    WITH e AS (
        INSERT INTO bench_bare.{e} (runtime_agent_id, current_revision, body, visibility)
        VALUES (agent, 1, body, 'perspective')
        RETURNING runtime_agent_id, entry_id, body, subject_id, visibility)
    INSERT INTO bench_bare.{r} AS r (runtime_agent_id, entry_id, revision, operation, body,
                                    subject_id, visibility, source_actor_id, source_message_id)
    SELECT e.runtime_agent_id, e.entry_id, 1, 'create', e.body, e.subject_id, e.visibility,
           actor, msg
    FROM e
    RETURNING r.entry_id, r.revision;
END
$$;
GRANT EXECUTE ON FUNCTION bench_floor.remember_bare(uuid, text, uuid, uuid, boolean) TO {runtime};
"""


# The amend ladder's bound rung: the bare amend (the entry's update and the
# revision's insert, one statement) inside a function that binds the call.
AMEND_WRAPPER = """
CREATE FUNCTION bench_floor.amend_bare(agent uuid, entry uuid, body text, expected integer,
                                       actor uuid, msg uuid)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    rev integer;
BEGIN
    PERFORM agent_state._bind(agent);
    WITH u AS (
        UPDATE bench_bare.{e} AS e
        SET body = body, current_revision = e.current_revision + 1, revised_at = clock_timestamp()
        WHERE e.runtime_agent_id = agent AND e.entry_id = entry AND e.current_revision = expected
        RETURNING e.runtime_agent_id, e.entry_id, e.current_revision, e.body, e.subject_id,
                  e.visibility)
    INSERT INTO bench_bare.{r} (runtime_agent_id, entry_id, revision, operation, body, subject_id,
                                visibility, source_actor_id, source_message_id)
    SELECT u.runtime_agent_id, u.entry_id, u.current_revision, 'amend', u.body, u.subject_id,
           u.visibility, actor, msg
    FROM u
    RETURNING revision INTO rev;
    RETURN rev;
END $$;
GRANT EXECUTE ON FUNCTION bench_floor.amend_bare(uuid, uuid, text, integer, uuid, uuid)
    TO {runtime};
"""

AMEND_BOUND = (
    AMEND_HEAD
    + f"""SELECT bench_floor.amend_bare(t.agent, t.entry, {AMEND_BODY}, t.rev + :pass,
                                  t.actor, t.msg)
FROM bench.targets AS t WHERE t.n = :t;
"""
)


def wrapped(bind: bool) -> str:
    return f"""\\set n random(1, :agents)
\\set r random(1, 1000000000)
\\set k random(1, 100000)
SELECT m.entry, m.revision FROM bench.ctx AS c,
    LATERAL bench_floor.remember_bare(c.agent, {REMEMBER_BODY}, c.actor, c.msg,
                                      {str(bind).lower()}) AS m
WHERE c.n = :n;
"""


# The tables a turn writes (its foreign-key checks are what the "keys off" rung
# switches off).
TURN_TABLES = (
    "prompt_snapshots",
    "snapshot_memory",
    "snapshot_messages",
    "model_calls",
    "tool_calls",
    "tool_results",
    "checkpoints",
    "runs",
)


def set_triggers(conn: Any, mode: str, tables: tuple[str, ...] = MEMORY_TABLES) -> None:
    """mode: 'ALL' (every trigger off), 'USER' (own triggers off, keys on), 'KEYS'
    (only the foreign-key checks of rows written to the tables off), '' (all on)."""
    for t in tables:
        conn.execute(f"ALTER TABLE agent_state.{t} ENABLE TRIGGER ALL")
        if mode == "KEYS":
            # The checks on the referencing side: internal triggers of the
            # table's own foreign keys.
            names = conn.execute(
                "SELECT g.tgname FROM pg_trigger AS g JOIN pg_constraint AS c"
                " ON c.oid = g.tgconstraint AND c.contype = 'f' AND c.conrelid = g.tgrelid"
                " WHERE g.tgrelid = %s::regclass AND g.tgisinternal",
                [f"agent_state.{t}"],
            ).fetchall()
            for (name,) in names:
                conn.execute(f'ALTER TABLE agent_state.{t} DISABLE TRIGGER "{name}"')
        elif mode:
            conn.execute(f"ALTER TABLE agent_state.{t} DISABLE TRIGGER {mode}")


# Turn rung 2: the bare turn's writes as SPEC's five calls, each bound.
TURN_WRAPPERS = """
CREATE SCHEMA bench_floor;
GRANT USAGE ON SCHEMA bench_floor TO {runtime};
CREATE FUNCTION bench_floor.snapshot(agent uuid, run uuid, prompt text, persona_rev integer,
                                     memory jsonb, messages uuid [])
RETURNS uuid LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    INSERT INTO bench_bare.snapshots (runtime_agent_id, run_id, prompt, prompt_sha256,
                                      persona_revision, memory, messages)
    VALUES (agent, run, prompt, encode(sha256(convert_to(prompt, 'UTF8')), 'hex'),
            persona_rev, memory, messages)
    RETURNING snapshot_id INTO id;
    RETURN id;
END $$;
CREATE FUNCTION bench_floor.model_call(agent uuid, run uuid, snap uuid, request jsonb,
                                       response jsonb, usage jsonb)
RETURNS uuid LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    UPDATE bench_bare.runs AS r
    SET spent_tokens = r.spent_tokens + (usage ->> 'tokens')::numeric,
        spent_cost_usd = r.spent_cost_usd + (usage ->> 'cost_usd')::numeric
    WHERE r.runtime_agent_id = agent AND r.run_id = run AND r.status = 'open';
    INSERT INTO bench_bare.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model,
                                        request, response, usage, status)
    VALUES (agent, run, snap, 'bench', 'bench-model', request, response, usage, 'ok')
    RETURNING model_call_id INTO id;
    RETURN id;
END $$;
CREATE FUNCTION bench_floor.tool_call(agent uuid, run uuid, mc uuid, input jsonb)
RETURNS uuid LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    UPDATE bench_bare.runs AS r SET spent_tool_calls = r.spent_tool_calls + 1
    WHERE r.runtime_agent_id = agent AND r.run_id = run AND r.status = 'open';
    INSERT INTO bench_bare.tool_calls (runtime_agent_id, run_id, model_call_id, tool, input)
    VALUES (agent, run, mc, 'search', input)
    RETURNING tool_call_id INTO id;
    RETURN id;
END $$;
CREATE FUNCTION bench_floor.tool_result(agent uuid, tc uuid, output jsonb)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    INSERT INTO bench_bare.tool_results (runtime_agent_id, tool_call_id, output, status)
    VALUES (agent, tc, output, 'ok');
END $$;
CREATE FUNCTION bench_floor.checkpoint(agent uuid, run uuid, frontier jsonb)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE n integer;
BEGIN
    PERFORM agent_state._bind(agent);
    INSERT INTO bench_bare.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
    SELECT agent, run, coalesce(max(p.checkpoint), 0) + 1, frontier
    FROM bench_bare.checkpoints AS p WHERE p.runtime_agent_id = agent AND p.run_id = run
    RETURNING checkpoint INTO n;
    RETURN n;
END $$;
CREATE FUNCTION bench_floor.turn(agent uuid, run uuid, prompt text, persona_rev integer,
                                 memory jsonb, messages uuid [], request jsonb, response jsonb,
                                 usage jsonb, input jsonb, output jsonb, frontier jsonb)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE n integer;
BEGIN
    PERFORM agent_state._bind(agent);
    WITH u AS (UPDATE bench_bare.runs AS r
               SET spent_tokens = r.spent_tokens + (usage ->> 'tokens')::numeric,
                   spent_cost_usd = r.spent_cost_usd + (usage ->> 'cost_usd')::numeric,
                   spent_tool_calls = r.spent_tool_calls + 1
               WHERE r.runtime_agent_id = agent AND r.run_id = run AND r.status = 'open'
               RETURNING r.runtime_agent_id, r.run_id),
    s AS (INSERT INTO bench_bare.snapshots (runtime_agent_id, run_id, prompt, prompt_sha256,
                                            persona_revision, memory, messages)
          VALUES (agent, run, prompt, encode(sha256(convert_to(prompt, 'UTF8')), 'hex'),
                  persona_rev, memory, messages)
          RETURNING runtime_agent_id, run_id, snapshot_id),
    m AS (INSERT INTO bench_bare.model_calls (runtime_agent_id, run_id, snapshot_id, provider,
                                              model, request, response, usage, status)
          SELECT s.runtime_agent_id, s.run_id, s.snapshot_id, 'bench', 'bench-model', request,
                 response, usage, 'ok' FROM s
          RETURNING runtime_agent_id, run_id, model_call_id),
    t AS (INSERT INTO bench_bare.tool_calls (runtime_agent_id, run_id, model_call_id, tool, input)
          SELECT m.runtime_agent_id, m.run_id, m.model_call_id, 'search', input FROM m
          RETURNING runtime_agent_id, tool_call_id),
    x AS (INSERT INTO bench_bare.tool_results (runtime_agent_id, tool_call_id, output, status)
          SELECT t.runtime_agent_id, t.tool_call_id, output, 'ok' FROM t
          RETURNING 1),
    k AS (INSERT INTO bench_bare.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
          SELECT u.runtime_agent_id, u.run_id,
                 (SELECT coalesce(max(p.checkpoint), 0) + 1 FROM bench_bare.checkpoints AS p
                  WHERE p.runtime_agent_id = u.runtime_agent_id AND p.run_id = u.run_id),
                 frontier FROM u
          RETURNING checkpoint)
    SELECT k.checkpoint INTO n FROM k;
    RETURN n;
END $$;
-- The same statement on the product's tables (run with their triggers and keys
-- off: it writes the derived values itself, with no checks): what the product's
-- table shapes cost, ten rows with their indexes and CHECKs, before any of its code.
CREATE FUNCTION bench_floor.turn_product(agent uuid, run uuid, prompt text, persona_rev integer,
                                         memory jsonb, messages uuid [], request jsonb,
                                         response jsonb, usage jsonb, input jsonb, output jsonb,
                                         frontier jsonb)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE n integer;
BEGIN
    PERFORM agent_state._bind(agent);
    WITH u AS (UPDATE agent_state.runs AS r
               SET spent_tokens = r.spent_tokens + (usage ->> 'tokens')::numeric,
                   spent_cost_usd = r.spent_cost_usd + (usage ->> 'cost_usd')::numeric,
                   spent_tool_calls = r.spent_tool_calls + 1
               WHERE r.runtime_agent_id = agent AND r.run_id = run AND r.status = 'open'
               RETURNING r.runtime_agent_id, r.run_id),
    s AS (INSERT INTO agent_state.prompt_snapshots (runtime_agent_id, run_id, prompt, prompt_sha256,
                                                    persona_revision, memory_count, message_count)
          VALUES (agent, run, prompt, encode(sha256(convert_to(prompt, 'UTF8')), 'hex'),
                  persona_rev, jsonb_array_length(memory), cardinality(messages))
          RETURNING runtime_agent_id, run_id, snapshot_id),
    sm AS (INSERT INTO agent_state.snapshot_memory (runtime_agent_id, snapshot_id, entry_id,
                                                    revision, ordinal)
           SELECT s.runtime_agent_id, s.snapshot_id, (e.v ->> 'entry')::uuid,
                  (e.v ->> 'revision')::integer, e.o
           FROM s, jsonb_array_elements(memory) WITH ORDINALITY AS e (v, o)
           RETURNING 1),
    sg AS (INSERT INTO agent_state.snapshot_messages (runtime_agent_id, snapshot_id, message_id,
                                                      ordinal)
           SELECT s.runtime_agent_id, s.snapshot_id, x.id, x.o
           FROM s, unnest(messages) WITH ORDINALITY AS x (id, o)
           RETURNING 1),
    m AS (INSERT INTO agent_state.model_calls (runtime_agent_id, run_id, snapshot_id, provider,
                                               model, request, response, tokens, cost_usd, status)
          SELECT s.runtime_agent_id, s.run_id, s.snapshot_id, 'bench', 'bench-model', request,
                 response, (usage ->> 'tokens')::numeric, (usage ->> 'cost_usd')::numeric, 'ok'
          FROM s
          RETURNING runtime_agent_id, run_id, model_call_id),
    t AS (INSERT INTO agent_state.tool_calls (runtime_agent_id, run_id, model_call_id, tool_name,
                                              grant_revision, input)
          SELECT m.runtime_agent_id, m.run_id, m.model_call_id, 'search', 1, input FROM m
          RETURNING runtime_agent_id, tool_call_id),
    x AS (INSERT INTO agent_state.tool_results (runtime_agent_id, tool_call_id, result_no, output,
                                                status)
          SELECT t.runtime_agent_id, t.tool_call_id, 1, output, 'ok' FROM t
          RETURNING 1),
    k AS (INSERT INTO agent_state.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
          SELECT u.runtime_agent_id, u.run_id,
                 (SELECT coalesce(max(p.checkpoint), 0) + 1 FROM agent_state.checkpoints AS p
                  WHERE p.runtime_agent_id = u.runtime_agent_id AND p.run_id = u.run_id),
                 frontier FROM u
          RETURNING checkpoint)
    SELECT k.checkpoint INTO n FROM k;
    RETURN n;
END $$;
-- The five bound calls on the product's tables (run with their triggers and keys
-- off, deriving what the triggers would, checking nothing).
CREATE FUNCTION bench_floor.p_snapshot(agent uuid, run uuid, prompt text, persona_rev integer,
                                       memory jsonb, messages uuid [])
RETURNS uuid LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    WITH s AS (INSERT INTO agent_state.prompt_snapshots (runtime_agent_id, run_id, prompt,
                   prompt_sha256, persona_revision, memory_count, message_count)
               VALUES (agent, run, prompt, encode(sha256(convert_to(prompt, 'UTF8')), 'hex'),
                       persona_rev, jsonb_array_length(memory), cardinality(messages))
               RETURNING snapshot_id),
    sm AS (INSERT INTO agent_state.snapshot_memory (runtime_agent_id, snapshot_id, entry_id,
                                                    revision, ordinal)
           SELECT agent, s.snapshot_id, (e.v ->> 'entry')::uuid, (e.v ->> 'revision')::integer, e.o
           FROM s, jsonb_array_elements(memory) WITH ORDINALITY AS e (v, o)
           RETURNING 1),
    sg AS (INSERT INTO agent_state.snapshot_messages (runtime_agent_id, snapshot_id, message_id,
                                                      ordinal)
           SELECT agent, s.snapshot_id, x.id, x.o
           FROM s, unnest(messages) WITH ORDINALITY AS x (id, o)
           RETURNING 1)
    SELECT s.snapshot_id INTO id FROM s;
    RETURN id;
END $$;
CREATE FUNCTION bench_floor.p_model_call(agent uuid, run uuid, snap uuid, request jsonb,
                                         response jsonb, usage jsonb)
RETURNS uuid LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    UPDATE agent_state.runs AS r
    SET spent_tokens = r.spent_tokens + (usage ->> 'tokens')::numeric,
        spent_cost_usd = r.spent_cost_usd + (usage ->> 'cost_usd')::numeric
    WHERE r.runtime_agent_id = agent AND r.run_id = run AND r.status = 'open';
    INSERT INTO agent_state.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model,
                                         request, response, tokens, cost_usd, status)
    VALUES (agent, run, snap, 'bench', 'bench-model', request, response,
            (usage ->> 'tokens')::numeric, (usage ->> 'cost_usd')::numeric, 'ok')
    RETURNING model_call_id INTO id;
    RETURN id;
END $$;
CREATE FUNCTION bench_floor.p_tool_call(agent uuid, run uuid, mc uuid, input jsonb)
RETURNS uuid LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    UPDATE agent_state.runs AS r SET spent_tool_calls = r.spent_tool_calls + 1
    WHERE r.runtime_agent_id = agent AND r.run_id = run AND r.status = 'open';
    INSERT INTO agent_state.tool_calls (runtime_agent_id, run_id, model_call_id, tool_name,
                                        grant_revision, input)
    VALUES (agent, run, mc, 'search', 1, input)
    RETURNING tool_call_id INTO id;
    RETURN id;
END $$;
CREATE FUNCTION bench_floor.p_tool_result(agent uuid, tc uuid, output jsonb)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    INSERT INTO agent_state.tool_results (runtime_agent_id, tool_call_id, result_no, output, status)
    VALUES (agent, tc, 1, output, 'ok');
END $$;
CREATE FUNCTION bench_floor.p_checkpoint(agent uuid, run uuid, frontier jsonb)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE n integer;
BEGIN
    PERFORM agent_state._bind(agent);
    INSERT INTO agent_state.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
    SELECT agent, run, coalesce(max(p.checkpoint), 0) + 1, frontier
    FROM agent_state.checkpoints AS p WHERE p.runtime_agent_id = agent AND p.run_id = run
    RETURNING checkpoint INTO n;
    RETURN n;
END $$;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA bench_floor TO {runtime};
"""

TURN_BOUND = """\\set r random(1, 1000000000)
\\set n :client_id * :runs + random(0, :runs - 1)
WITH c AS (SELECT * FROM bench.turn_ctx WHERE n = :n),
s AS (SELECT c.*, bench_floor.snapshot(c.agent, c.run, c.prompt || :r, c.persona_rev,
          c.memory, c.messages) AS snap FROM c),
m AS (SELECT s.*, bench_floor.model_call(s.agent, s.run, s.snap, s.request, s.response,
          s.usage) AS mc FROM s),
t AS (SELECT m.*, bench_floor.tool_call(m.agent, m.run, m.mc, m.input) AS tc FROM m),
x AS (SELECT t.*, bench_floor.tool_result(t.agent, t.tc, t.output) AS done FROM t)
SELECT bench_floor.checkpoint(x.agent, x.run, x.frontier) FROM x;
"""

# Turn rung 5: the bare turn as one bound call.
TURN_ONE_BOUND = """\\set r random(1, 1000000000)
\\set n :client_id * :runs + random(0, :runs - 1)
SELECT bench_floor.turn(c.agent, c.run, c.prompt || :r, c.persona_rev, c.memory, c.messages,
                        c.request, c.response, c.usage, c.input, c.output, c.frontier)
FROM bench.turn_ctx AS c WHERE c.n = :n;
"""
TURN_BOUND_PRODUCT = (
    TURN_BOUND.replace("bench_floor.snapshot(", "bench_floor.p_snapshot(")
    .replace("bench_floor.model_call(", "bench_floor.p_model_call(")
    .replace("bench_floor.tool_call(", "bench_floor.p_tool_call(")
    .replace("bench_floor.tool_result(", "bench_floor.p_tool_result(")
    .replace("bench_floor.checkpoint(", "bench_floor.p_checkpoint(")
)
TURN_ONE_PRODUCT = TURN_ONE_BOUND.replace("bench_floor.turn(", "bench_floor.turn_product(")


def ladder(
    conn: Any,
    runtime: str,
    rungs: list[tuple[str, str, str]],
    *,
    name: str,
    clients_list: list[int],
    seconds: float,
    rounds: int,
    defines: dict[str, object],
    tables: tuple[str, ...] = MEMORY_TABLES,
    prepare: Any = None,
) -> list[dict[str, Any]]:
    """Run every rung with pgbench, rounds interleaved; mean tps and ratio to the
    first rung. A rung's third field switches the triggers of ``tables``.
    ``prepare(label, clients)``, when given, runs before each pgbench run and
    returns extra defines and a check of the run's result."""
    rows: list[dict[str, Any]] = []
    for clients in clients_list:
        tps: dict[str, list[float]] = {label: [] for label, _, _ in rungs}
        for _round in range(rounds):
            for label, script, mode in rungs:
                if mode is not None:
                    with conn.transaction():
                        set_triggers(conn, mode, tables)
                extra, check = prepare(label, clients) if prepare else ({}, None)
                conn.execute("CHECKPOINT")
                res = pgbench(
                    runtime,
                    script,
                    clients=clients,
                    seconds=seconds,
                    label=f"{name} {label} {clients}c",
                    defines={**defines, **extra},
                )
                if check:
                    check(res)
                tps[label].append(res.tps)
                log(f"  {name} {clients}c {label:34} {res.tps:10.1f} tps")
        base_values = tps[rungs[0][0]]
        base = sum(base_values) / len(base_values)
        for label, values in tps.items():
            mean = sum(values) / len(values)
            rows.append(
                {
                    "ladder": name,
                    "clients": clients,
                    "rung": label,
                    "tps": mean,
                    "runs": values,
                    "ratio": mean / base if base else 0.0,
                }
            )
    return rows


def remember_ladder(server: Server, args: argparse.Namespace) -> list[dict[str, Any]]:
    server.product_database(DB)
    with server.connect(DB) as conn:
        with timed("setup agents"):
            btree_gin = setup(conn, args.agents, 0.29)
        shapes = bare_shapes(btree_gin)
        load(
            conn,
            first=1,
            last=args.agents,
            per_agent=args.per_agent,
            big=0,
            shapes=shapes,
            span_days=30,
        )
        _, e, r, _ = shapes[0]
        conn.execute(WRAPPERS.format(e=e, r=r, runtime=RUNTIME_ROLE))
        conn.commit()
        rows = ladder(
            conn,
            server.dsn(DB, RUNTIME_ROLE),
            [
                ("bare", REMEMBER_BARE.format(e=e, r=r), ""),
                ("bare in a function", wrapped(False), ""),
                ("+ binding", wrapped(True), ""),
                ("remember, triggers and keys off", REMEMBER_PRODUCT, "ALL"),
                ("remember, keys on", REMEMBER_PRODUCT, "USER"),
                ("remember", REMEMBER_PRODUCT, ""),
            ],
            name="remember",
            clients_list=args.clients_list,
            seconds=args.seconds,
            rounds=args.rounds,
            defines={"agents": args.agents},
        )
        with conn.transaction():
            set_triggers(conn, "")
        conn.execute(AMEND_WRAPPER.format(e=e, r=r, runtime=RUNTIME_ROLE))
        conn.commit()
        targets = 2000

        def prepare(label: str, clients: int) -> tuple[dict[str, object], Any]:
            """Fresh targets from the rung's table; then every transaction must
            have amended (a bare update with a wrong revision does nothing)."""
            bare = not label.startswith("amend")
            entries = f"bench_bare.{e}" if bare else "agent_state.memory_entries"
            revisions = f"bench_bare.{r}" if bare else "agent_state.memory_revisions"
            build_targets(conn, entries, targets, 0.42)
            conn.commit()
            before = count_amends(conn, revisions)

            def check(res: Any) -> None:
                done = count_amends(conn, revisions) - before
                if done != res.transactions:
                    raise RuntimeError(f"amend {label}: {res.transactions} runs, {done} amends")

            return {"iter": 0, "nclients": clients, "slice": targets // clients}, check

        rows += ladder(
            conn,
            server.dsn(DB, RUNTIME_ROLE),
            [
                ("bare", AMEND_BARE.format(e=e, r=r), ""),
                ("bare in a bound function", AMEND_BOUND, ""),
                ("amend, triggers and keys off", AMEND_PRODUCT, "ALL"),
                ("amend, keys on", AMEND_PRODUCT, "USER"),
                ("amend", AMEND_PRODUCT, ""),
            ],
            name="amend",
            clients_list=args.clients_list,
            seconds=args.seconds,
            rounds=args.rounds,
            defines={"agents": args.agents},
            prepare=prepare,
        )
        with conn.transaction():
            set_triggers(conn, "")
    server.drop_database(DB)
    return rows


def turn_ladder(server: Server, args: argparse.Namespace) -> list[dict[str, Any]]:
    server.product_database(TURN_DB)
    with server.connect(TURN_DB) as conn:
        with timed("turn setup"):
            turn.setup(conn, max(args.clients_list), args.runs)
        conn.execute(TURN_WRAPPERS.format(runtime=RUNTIME_ROLE))
        conn.commit()
        runtime = server.dsn(TURN_DB, RUNTIME_ROLE)
        # With triggers off, the product's functions still derive what the
        # triggers would (they skip the extension's own writes), except a tool
        # result's number: the five calls' rung with triggers off is run on
        # fresh tool calls only, whose first result is numbered 1 by default.
        rungs: list[tuple[str, str, str | None]] = [
            ("bare", turn.BARE_ONE, ""),
            ("bare as five bound calls", TURN_BOUND, ""),
            (
                "five bound calls on the product tables, triggers and keys off",
                TURN_BOUND_PRODUCT,
                "ALL",
            ),
            ("turn, triggers and keys off", turn.PRODUCT_ONE, "ALL"),
            ("turn, foreign-key checks off", turn.PRODUCT_ONE, "KEYS"),
            ("turn", turn.PRODUCT_ONE, ""),
            ("bare as one bound call", TURN_ONE_BOUND, ""),
            (
                "one bound call on the product tables, triggers and keys off",
                TURN_ONE_PRODUCT,
                "ALL",
            ),
            ("record_turn, triggers and keys off", turn.PRODUCT_RECORD_TURN, "ALL"),
            ("record_turn, keys on", turn.PRODUCT_RECORD_TURN, "USER"),
            ("record_turn", turn.PRODUCT_RECORD_TURN, ""),
        ]
        # Warm-up and ANALYZE, as bench/turn.py does, so cached plans see rows.
        for label, script, _ in rungs:
            pgbench(
                runtime,
                script,
                clients=max(args.clients_list),
                seconds=max(2.0, args.seconds / 4),
                label=f"warm-up {label}",
                defines={"runs": args.runs},
            )
        conn.execute("VACUUM ANALYZE")
        rows = ladder(
            conn,
            runtime,
            rungs,  # type: ignore[arg-type]
            name="turn",
            clients_list=args.clients_list,
            seconds=args.seconds,
            rounds=args.rounds,
            defines={"runs": args.runs},
            tables=TURN_TABLES,
        )
        with conn.transaction():
            set_triggers(conn, "", TURN_TABLES)
    server.drop_database(TURN_DB)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="small sizes, short runs")
    ap.add_argument("--agents", type=int)
    ap.add_argument("--per-agent", type=int, help="entries loaded per agent (100)")
    ap.add_argument("--runs", type=int, help="open runs per turn agent (500)")
    ap.add_argument("--seconds", type=float, help="length of each pgbench run (15)")
    ap.add_argument("--rounds", type=int, help="interleaved repetitions (2)")
    ap.add_argument("--clients", default="1,8")
    ap.add_argument("--only", choices=("remember", "turn"), help="run one ladder")
    ap.add_argument("--out", help="write the results as JSON to this file")
    args = ap.parse_args()
    defaults = (
        {"agents": 50, "per_agent": 20, "runs": 50, "seconds": 3, "rounds": 1}
        if args.quick
        else {"agents": 1000, "per_agent": 100, "runs": 500, "seconds": 15, "rounds": 2}
    )
    for key, val in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, val)
    args.clients_list = [int(c) for c in args.clients.split(",")]

    results: dict[str, Any] = {
        "config": {k: v for k, v in vars(args).items() if k not in ("out", "clients_list")}
    }
    rows: list[dict[str, Any]] = []
    with Server() as server:
        results["machine"] = server.describe()
        if args.only in (None, "remember"):
            rows += remember_ladder(server, args)
        if args.only in (None, "turn"):
            rows += turn_ladder(server, args)
    results["rungs"] = rows

    m = results["machine"]
    print("## Write cost ladders\n")
    print(f"Machine: {m.get('cpu')}, {m.get('cores')} cores; {m.get('server')}")
    print(f"Settings: fsync={m.get('fsync')}, synchronous_commit={m.get('synchronous_commit')}")
    print(f"Config: {results['config']}\n")
    print(
        table(
            ["ladder", "clients", "rung", "tps", "per round", "ratio to bare"],
            [
                [
                    row["ladder"],
                    row["clients"],
                    row["rung"],
                    f"{row['tps']:.0f}",
                    ", ".join(f"{v:.0f}" for v in row["runs"]),
                    f"{row['ratio']:.2f}x",
                ]
                for row in rows
            ],
        )
    )
    print(
        f"\n(The targets: remember >= {TARGETS['remember']}x and a turn >= {TARGETS['turn']}x"
        " their bare rung; record_turn >= 0.6x.)"
    )
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
