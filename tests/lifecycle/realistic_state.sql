-- A realistic agent_state state touching every table: persona history with a
-- revert, memories that are amended, forgotten, shared, redacted and imported,
-- a run with a snapshot, model and tool calls (one result left unconfirmed),
-- checkpoints and a continuation, tool grants, and hosting for a login role.
-- Uses only the 0.1.0 API, so the upgrade tests write it before upgrading.
-- Run as a superuser (an operator by membership); the hosting role
-- agent_state_lifecycle_host must exist. Writes the agent with handle
-- :'handle' (default 'lifecycle').
DO $state$
DECLARE
    agent uuid;
    other uuid;
    alice uuid;
    bob uuid;
    conv uuid;
    pub uuid;
    m1 uuid;
    m2 uuid;
    m3 uuid;
    e1 uuid;
    e2 uuid;
    e3 uuid;
    e4 uuid;
    run1 uuid;
    run2 uuid;
    snap uuid;
    mc uuid;
    tc1 uuid;
    tc2 uuid;
    r int;
BEGIN
    agent := agent_state.create_agent(handle => 'lifecycle', display_name => 'Lyra "quoted" ü',
                                      settings => '{"recency_half_life": "10 days"}');
    other := agent_state.create_agent(handle => 'lifecycle-other');
    PERFORM agent_state.grant_hosting(agent => agent, host => 'agent_state_lifecycle_host');

    PERFORM agent_state.revise_persona(agent => agent, body => 'You are Lyra, first draft.');
    PERFORM agent_state.revise_persona(agent => agent, body => 'You are Lyra, second draft.');
    PERFORM agent_state.revise_persona(agent => agent, body => 'You are Lyra, not yet active.', activate => false);
    PERFORM agent_state.activate_persona(agent => agent, revision => 1);
    PERFORM agent_state.revise_persona(agent => other, body => 'Another agent.');

    alice := agent_state.resolve_actor(agent => agent, connector => 'slack', external_id => 'U1',
                                       display_name => 'Alice');
    bob := agent_state.resolve_actor(agent => agent, connector => 'slack', external_id => 'U2',
                                     display_name => 'Bob');
    PERFORM agent_state.link_identity(agent => agent, actor => alice, connector => 'github',
                                      external_id => 'alice-gh');
    conv := agent_state.open_conversation(agent => agent, connector => 'slack', external_ref => 'C1',
                                          kind => 'group');
    pub := agent_state.open_conversation(agent => agent, connector => 'slack', external_ref => 'C2',
                                         kind => 'public');
    m1 := agent_state.record_message(agent => agent, conversation => conv, author => alice,
                                     body => 'I am allergic to peanuts.', audience => ARRAY[alice, bob],
                                     external_ref => 'msg-1');
    m2 := agent_state.record_message(agent => agent, conversation => conv, author => bob,
                                     body => 'Alice moved to Lisbon.', audience => ARRAY[alice, bob]);
    m3 := agent_state.record_message(agent => agent, conversation => pub, author => alice,
                                     body => 'Public: I like tea.', audience => NULL);

    SELECT x.entry INTO e1 FROM agent_state.remember(agent => agent, body => 'Alice is allergic to peanuts',
                                                     source_message => m1, subject => alice) AS x;
    r := agent_state.amend(agent => agent, entry => e1, body => 'Alice is severely allergic to peanuts',
                           expected_revision => 1, source_message => m2);
    SELECT x.entry INTO e2 FROM agent_state.remember(agent => agent, body => 'Alice lives in Lisbon',
                                                     source_message => m2, subject => alice,
                                                     visibility => 'conversation') AS x;
    PERFORM agent_state.forget(agent => agent, entry => e2, expected_revision => 1, reason => 'moved again');
    SELECT x.entry INTO e3 FROM agent_state.remember(agent => agent, body => 'Alice likes tea',
                                                     source_message => m3, subject => alice) AS x;
    SELECT x.entry INTO e4 FROM agent_state.note(agent => agent, body => 'Bob prefers email', subject => bob) AS x;
    PERFORM agent_state.share(agent => agent, entry => e1, revision => 2, conversation => pub);
    PERFORM agent_state.share(agent => agent, entry => e4, revision => 1, conversation => pub);
    PERFORM agent_state.unshare(agent => agent, entry => e4, revision => 1, conversation => pub);
    PERFORM agent_state.import_markdown(agent => agent,
        document => E'# Memory\n\n- Alice''s birthday is in May\n- The team meets on Mondays\n');

    PERFORM agent_state.register_tool(name => 'search', version => '1.0',
        config_schema => '{"type": "object", "properties": {"max": {"type": "integer", "maximum": 10}}}');
    PERFORM agent_state.register_tool(name => 'search', version => '1.1',
        config_schema => '{"type": "object", "properties": {"max": {"type": "integer", "maximum": 20}}}');
    PERFORM agent_state.grant_tool(agent => agent, tool => 'search', enabled => true, config => '{"max": 5}');
    PERFORM agent_state.grant_tool(agent => agent, tool => 'search', enabled => true, config => '{"max": 15}');

    run1 := agent_state.start_run(agent => agent, conversation => conv, trigger_message => m1,
                                  budget => '{"tokens": 100000, "cost_usd": 2.5, "tool_calls": 10}');
    snap := agent_state.snapshot_prompt(agent => agent, run => run1,
        prompt => 'You are Lyra. Alice is severely allergic to peanuts.', persona_revision => 1,
        memory => pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('entry', e1, 'revision', 2)),
        messages => ARRAY[m1, m2]);
    mc := agent_state.record_model_call(agent => agent, run => run1, snapshot => snap, provider => 'fake',
        model => 'fake-1', request => '{"messages": 2}', response => '{"text": "ok"}',
        usage => '{"tokens": 1200, "cost_usd": 0.012}');
    tc1 := agent_state.record_tool_call(agent => agent, run => run1, tool => 'search',
                                        input => '{"q": "snacks"}', model_call => mc);
    PERFORM agent_state.record_tool_result(agent => agent, tool_call => tc1, output => '{"hits": 3}',
                                           status => 'ok');
    tc2 := agent_state.record_tool_call(agent => agent, run => run1, tool => 'search',
                                        input => '{"q": "book a flight"}', model_call => mc);
    PERFORM agent_state.record_tool_result(agent => agent, tool_call => tc2, output => '{"timeout": true}',
                                           status => 'unconfirmed');
    PERFORM agent_state.checkpoint(agent => agent, run => run1, frontier => '{"step": 1}');
    PERFORM agent_state.checkpoint(agent => agent, run => run1, frontier => '{"step": 2, "todo": ["x"]}');
    run2 := agent_state.continue_run(agent => agent, run => run1, task_context => '{"resume": "step 2"}',
                                     budget => '{"tokens": 200000}');
    PERFORM agent_state.checkpoint(agent => agent, run => run2, frontier => '{"step": 3}');

    -- Redaction last: it rewrites the revisions of e3 and the snapshot that used them.
    PERFORM agent_state.redact(agent => agent, entry => e3, reason => 'erasure request');
END
$state$;
