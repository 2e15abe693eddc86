-- What the 0.2.0 API cannot write: rows of the tables added in 0.3.0 beyond what
-- the upgrade itself derives (every agent's profile revision 1).
SELECT agent_state.revise_profile(a.runtime_agent_id, display_name => 'Lifecycle, renamed',
                                  settings => '{"subject_boost": 1.5, "recency_half_life": "14 days"}')
FROM agent_state.agents AS a WHERE a.handle = 'lifecycle';
