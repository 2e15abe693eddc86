// agent_state from Node.js with node-postgres (the `pg` package): every call is plain
// SQL with named notation and an explicit cast on each argument, as the Python
// wrapper sends it. Nothing here is specific to Node; any PostgreSQL driver works.
//
//   cd examples/node && npm install
//   AGENT_STATE_DSN=postgresql://ops@db.example.com/app node agent_state_example.js [handle]
//
// Without AGENT_STATE_DSN (a postgresql:// URI) node-postgres reads libpq's PGHOST,
// PGPORT, PGUSER, PGPASSWORD and PGDATABASE. The role must be a member of
// agent_state_operator: the example creates the agent if the handle is not found,
// writes its persona and an operator note. Errors carry the SQLSTATE in err.code.
"use strict";

const { Client } = require("pg");

// Several calls that must commit together: one client, BEGIN ... COMMIT.
async function inTransaction(client, work) {
  await client.query("BEGIN");
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK");
    throw err;
  }
}

// The agent with this handle, created when there is none (P0002: no such agent that
// this role may act for).
async function agentFor(client, handle) {
  try {
    const { rows } = await client.query(
      "SELECT agent_state.find_agent(handle => $1::text) AS agent",
      [handle],
    );
    return { agent: rows[0].agent, created: false };
  } catch (err) {
    if (err.code !== "P0002") throw err;
  }
  const { rows } = await client.query(
    "SELECT agent_state.create_agent(handle => $1::text, display_name => $2::text) AS agent",
    [handle, "Node example"],
  );
  return { agent: rows[0].agent, created: true };
}

async function main() {
  const handle = process.argv[2] || "node-example";
  const dsn = process.env.AGENT_STATE_DSN;
  const client = new Client(dsn ? { connectionString: dsn } : {});
  await client.connect();
  try {
    const { agent, created } = await agentFor(client, handle);
    console.log(`${created ? "created" : "found"} agent ${handle}: ${agent}`);

    const revision = await inTransaction(client, async () => {
      const { rows } = await client.query(
        "SELECT agent_state.revise_persona(agent => $1::uuid, body => $2::text) AS revision",
        [agent, "You answer in one sentence."],
      );
      await client.query(
        "SELECT * FROM agent_state.note(agent => $1::uuid, body => $2::text)",
        [agent, "The office opens at nine."],
      );
      return rows[0].revision;
    });
    console.log(`persona revision ${revision} active; a note remembered`);

    // A set-returning function: SELECT * FROM it, optional arguments by name.
    const { rows: hits } = await client.query(
      "SELECT entry, revision, score, body FROM agent_state.recall(" +
        "agent => $1::uuid, query => $2::text, max_results => $3::integer)",
      [agent, "office", 5],
    );
    console.log(`recall 'office': ${hits.length} hit(s)`);
    for (const hit of hits) {
      console.log(`  entry ${hit.entry} r${hit.revision} score ${hit.score.toFixed(4)}: ${hit.body}`);
    }

    try {
      await client.query("SELECT * FROM agent_state.persona_history(agent => $1::uuid)", [
        "00000000-0000-4000-8000-000000000000",
      ]);
    } catch (err) {
      console.log(`an unknown agent: SQLSTATE ${err.code}: ${err.message}`);
    }
  } finally {
    await client.end();
  }
}

main().catch((err) => {
  console.error(`error${err.code ? ` [${err.code}]` : ""}: ${err.message}`);
  process.exit(1);
});
