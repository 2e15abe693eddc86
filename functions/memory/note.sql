CREATE FUNCTION agent_state.note(agent uuid, body text, subject uuid DEFAULT NULL)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need_text(body, 'body');
    IF subject IS NOT NULL THEN
        PERFORM agent_state._need_ref(agent, 'actor', subject, 'subject');
    END IF;
    RETURN QUERY
    SELECT i.entry, i.revision
    FROM agent_state._insert_memory(agent, body, subject, 'perspective', 'operator', NULL, NULL, NULL) AS i;
END
$$;

COMMENT ON FUNCTION agent_state.note(uuid, text, uuid) IS
'note(agent, body, subject => null) -> (entry, revision) (operator): an operator-authored memory '
'with no evidence messages, visibility perspective; it restricts no audience. body: 1 to 100,000 '
'characters (22023).';
