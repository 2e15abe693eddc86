-- What the 0.2.0 API cannot write: rows of the tables added in 0.3.0 beyond what
-- the upgrade itself derives (every agent's profile revision 1).
SELECT agent_state.revise_profile(a.runtime_agent_id, display_name => 'Lifecycle, renamed',
                                  settings => '{"subject_boost": 1.5, "recency_half_life": "14 days"}')
FROM agent_state.agents AS a WHERE a.handle = 'lifecycle';
-- A restore (agent_restores, a restore revision): forget an entry, then restore
-- the agent to the moment before.
DO $restore$
DECLARE
    agent uuid := (SELECT a.runtime_agent_id FROM agent_state.agents AS a WHERE a.handle = 'lifecycle');
    entry uuid := (SELECT e.entry_id FROM agent_state.memory_entries AS e
                   WHERE e.runtime_agent_id = agent AND e.live
                     AND e.body NOT LIKE 'Alice is severely%'  -- still_works() amends that one
                   ORDER BY e.created_at LIMIT 1);
    good timestamptz := clock_timestamp();
BEGIN
    PERFORM agent_state.forget(agent, entry);
    PERFORM agent_state.restore_agent(agent, good, 'lifecycle restore');
END
$restore$;
-- A fork (agent_forks, and a copy of every table the fork copies).
SELECT agent_state.fork_agent(a.runtime_agent_id, 'lifecycle-fork', display_name => 'Lifecycle, forked')
FROM agent_state.agents AS a WHERE a.handle = 'lifecycle';
-- An SDK session with a retracted item (session_items, session_retractions).
DO $session$
DECLARE
    agent uuid := (SELECT a.runtime_agent_id FROM agent_state.agents AS a WHERE a.handle = 'lifecycle');
    conv uuid := agent_state.open_conversation(agent, 'openai-agents', 'lifecycle-session', 'direct');
BEGIN
    PERFORM agent_state.session_add_items(agent, conv, '[{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]');
    PERFORM agent_state.session_pop_item(agent, conv);
END
$session$;
-- An agent moved to another shard (agent_moves): frozen, exported, then its copy
-- here retired, as a router's move_agent leaves it on the source.
DO $moved$
DECLARE
    agent uuid := agent_state.create_agent('lifecycle-moved');
BEGIN
    PERFORM agent_state.note(agent, 'A fact of an agent that moved away.');
    PERFORM agent_state.move_step(agent, 'begin', 'elsewhere');
    PERFORM agent_state.move_step(agent, 'export');
    PERFORM agent_state.move_step(agent, 'retire');
END
$moved$;
