"""The inspector's pages: Jinja2 templates kept in Python strings, rendered with
autoescaping on for every template (a stored text is data, never markup)."""

from __future__ import annotations

from jinja2 import DictLoader, Environment, StrictUndefined

__all__ = ["ICON", "STYLE", "environment"]

ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    '<rect width="16" height="16" rx="3" fill="#1d2430"/>'
    '<circle cx="8" cy="8" r="4" fill="#2da44e"/></svg>'
)

STYLE = """\
body { font-family: system-ui, sans-serif; margin: 0; color: #1d2430; background: #fafbfc; }
header { background: #1d2430; color: #fff; padding: .6rem 1.2rem; }
header a { color: #fff; margin-right: 1rem; text-decoration: none; }
header .who { float: right; color: #b8c2d0; }
main { padding: 1rem 1.2rem; max-width: 72rem; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 1.6rem; }
table { border-collapse: collapse; margin: .4rem 0; }
th, td { border: 1px solid #d5dae1; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #eef1f5; }
pre, .body { white-space: pre-wrap; word-break: break-word; font-family: ui-monospace, monospace;
  font-size: .88rem; }
pre { background: #fff; border: 1px solid #d5dae1; padding: .5rem; }
.diff .add { background: #e6ffec; } .diff .del { background: #ffebe9; }
.diff .hunk { color: #6e7781; }
.muted { color: #6e7781; } .mono { font-family: ui-monospace, monospace; font-size: .85rem; }
.active { font-weight: bold; color: #1a7f37; }
.warn { background: #fff8c5; } .bad { background: #ffebe9; }
tr.out td { color: #6e7781; } tr.ok td:nth-child(4) { color: #1a7f37; font-weight: bold; }
.snapshot { border-left: 3px solid #d5dae1; padding-left: .8rem; margin: 1rem 0; }
nav.agent a { margin-right: 1rem; }
.refused { border: 1px solid #d4a72c; background: #fff8c5; padding: .6rem; }
form.moment { background: #fff; border: 1px solid #d5dae1; padding: .6rem; }
"""

_BASE = """\
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{% block title %}agent_state inspector{% endblock %}</title>
<link rel="stylesheet" href="/static/style.css">
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
</head>
<body>
<header><a href="/">agents</a><a href="/verify">verify</a>
<span class="who">read-only, as role {{ role }}</span></header>
<main>
{% if agent_id %}<nav class="agent">
<a href="/agents/{{ agent_id }}">persona, profile, grants</a>
<a href="/agents/{{ agent_id }}/memory">memory</a>
<a href="/agents/{{ agent_id }}/eligible">eligible in</a>
<a href="/agents/{{ agent_id }}/timeline">timeline</a>
<a href="/agents/{{ agent_id }}/runs">runs</a>
</nav>{% endif %}
{% block content %}{% endblock %}
</main>
</body>
</html>
"""

_DIFF = """\
{% macro diff(lines) -%}
{% if lines %}<pre class="diff">{% for kind, text in lines -%}
<span class="{{ kind }}">{{ text }}</span>
{% endfor %}</pre>{% else %}<p class="muted">no change in text</p>{% endif %}
{%- endmacro %}
{% macro run_link(agent_id, run) -%}
{% if run %}<a href="/agents/{{ agent_id }}/runs/{{ run }}">{{ run }}</a>{% endif %}
{%- endmacro %}
"""

_AGENTS = """\
{% extends "base.html" %}
{% block content %}
<h1>Agents</h1>
<p class="muted">The agents role {{ role }} may act for right now (list_agents).</p>
{% if agents %}
<table>
<tr><th>handle</th><th>display name</th><th>live memories</th><th>runs</th><th>created</th></tr>
{% for a in agents %}
<tr><td><a href="/agents/{{ a.agent }}">{{ a.handle }}</a></td>
<td>{{ a.display_name or "" }}</td><td>{{ a.memories }}</td><td>{{ a.runs }}</td>
<td class="mono">{{ a.created_at }}</td></tr>
{% endfor %}
</table>
{% else %}<p>No agents: this role may act for none.</p>{% endif %}
{% endblock %}
"""

_AGENT = """\
{% extends "base.html" %}
{% from "diff.html" import diff %}
{% block title %}{{ handle }} · agent_state inspector{% endblock %}
{% block content %}
<h1>{{ handle }}</h1>
<p class="mono muted">{{ agent_id }}</p>
<h2>Persona</h2>
{% if not personas %}<p>No persona revision.</p>{% endif %}
{% for p in personas %}
<h3>revision {{ p.revision }}
{%- if p.is_active %} <span class="active">(active)</span>{% endif %}</h3>
<p class="muted">{{ p.created_at }} by {{ p.created_by }}</p>
<pre>{{ p.body }}</pre>
{% if p.diff is not none %}<p>changed from revision {{ p.revision - 1 }}:</p>
{{ diff(p.diff) }}{% endif %}
{% endfor %}
<h2>Profile</h2>
{% for p in profiles %}
<h3>revision {{ p.revision }}{% if loop.last %} (current){% endif %}</h3>
<p class="muted">{{ p.created_at }} by {{ p.created_by }}</p>
<pre>{{ p.text }}</pre>
{% if p.diff is not none %}<p>changed from revision {{ p.revision - 1 }}:</p>
{{ diff(p.diff) }}{% endif %}
{% endfor %}
<h2>Tool grants</h2>
{% if grants %}
<table><tr><th>tool</th><th>revision</th><th>enabled</th><th>config</th><th>history</th></tr>
{% for g in grants %}
<tr><td class="mono">{{ g.tool }}</td><td>{{ g.revision }}</td>
<td>{{ "yes" if g.enabled else "no" }}</td><td><pre>{{ g.config }}</pre></td>
<td>{% for h in g.history %}{{ h.revision }}: {{ "enabled" if h.enabled else "disabled" }},
{{ h.created_at }} by {{ h.created_by }}<br>{% endfor %}</td></tr>
{% endfor %}</table>
{% else %}<p>No tool grants.</p>{% endif %}
{% endblock %}
"""

_MEMORY = """\
{% extends "base.html" %}
{% block title %}memory of {{ handle }} · agent_state inspector{% endblock %}
{% block content %}
<h1>Memory of {{ handle }}</h1>
<p class="muted">Every entry in its current state, forgotten and redacted ones included
(list_memories), newest first. No eligibility is applied here.</p>
{% if cut %}<p class="warn">Only the newest {{ shown }} entries are shown.</p>{% endif %}
{% if memories %}
<table><tr><th>entry</th><th>revision</th><th>state</th><th>body</th><th>subject</th>
<th>visibility</th><th>source</th><th>revised</th></tr>
{% for m in memories %}
<tr{% if not m.live %} class="muted"{% endif %}>
<td class="mono"><a href="/agents/{{ agent_id }}/memory/{{ m.entry }}">{{ m.entry }}</a></td>
<td>{{ m.revision }}</td><td>{{ "live" if m.live else "forgotten" }}</td>
<td class="body">{{ m.body }}</td><td class="mono">{{ m.subject or "" }}</td>
<td>{{ m.visibility }}</td><td>{{ m.source_type }}</td><td class="mono">{{ m.revised_at }}</td></tr>
{% endfor %}</table>
{% else %}<p>No memory entries.</p>{% endif %}
{% endblock %}
"""

_ENTRY = """\
{% extends "base.html" %}
{% from "diff.html" import diff %}
{% block title %}memory entry · agent_state inspector{% endblock %}
{% block content %}
<h1>Memory entry of {{ handle }}</h1>
<p class="mono">{{ entry }}</p>
{% if redacted %}<p class="bad">Redacted: every revision's text was replaced.</p>{% endif %}
<h2>Sharing grants</h2>
{% if not operator_view %}<p class="muted">Sharing grants are shown to operators
(export_agent).</p>
{% elif shares %}
<table class="shares"><tr><th>revision</th><th>conversation</th><th>granted</th><th>by</th>
<th>revoked</th></tr>
{% for g in shares %}<tr{% if not g.live %} class="muted"{% endif %}><td>{{ g.revision }}</td>
<td>{{ g.conversation_name }}</td><td class="mono">{{ g.created_at }}</td>
<td>{{ g.created_by }}</td><td class="mono">{{ g.revoked_at or "" }}</td></tr>{% endfor %}
</table>
{% else %}<p>None.</p>{% endif %}
{% for r in revisions %}
<h2>revision {{ r.revision }}: {{ r.operation }}</h2>
<table>
<tr><th>at</th><td class="mono">{{ r.created_at }}</td></tr>
<tr><th>subject</th><td>{% if r.subject_name %}{{ r.subject_name }} {% endif -%}
<span class="mono">{{ r.subject or "none" }}</span></td></tr>
<tr><th>visibility</th><td>{{ r.visibility }}</td></tr>
<tr><th>source</th><td>{{ r.source_type }}</td></tr>
<tr><th>source actor</th><td>{% if r.source_actor_name %}{{ r.source_actor_name }} {% endif -%}
<span class="mono">{{ r.source_actor or "none" }}</span></td></tr>
</table>
<h3>evidence messages</h3>
{% if r.evidence %}
<table class="evidence"><tr><th>message</th><th>text</th><th>author</th><th>conversation</th>
<th>audience (who could observe it)</th></tr>
{% for m in r.evidence %}<tr><td class="mono">{{ m.message }}</td>
{% if m.known %}<td class="body">{{ m.body }}</td><td>{{ m.author }}</td>
<td>{{ m.conversation_name }}</td>
<td>{% if m.public %}public{% else %}{{ m.audience | join(", ") }}{% endif %}</td>
{% else %}<td colspan="4" class="muted">text and audience: shown to operators
(export_agent)</td>{% endif %}</tr>
{% endfor %}</table>
{% else %}<p class="muted">none (an operator note or an import)</p>{% endif %}
<pre>{{ r.body }}</pre>
{% if r.diff is not none %}<p>changed from revision {{ r.revision - 1 }}:</p>
{{ diff(r.diff) }}{% endif %}
{% endfor %}
{% endblock %}
"""

_ELIGIBLE = """\
{% extends "base.html" %}
{% block title %}eligible in · agent_state inspector{% endblock %}
{% block content %}
<h1>Eligible in a conversation: {{ handle }}</h1>
<form class="moment" method="get" action="/agents/{{ agent_id }}/eligible">
<label>conversation
<select name="conversation">
{% for c in conversations %}<option value="{{ c.conversation }}"
{%- if c.conversation == chosen %} selected{% endif %}>{{ c.connector }} {{ c.external_ref }}
({{ c.kind }})</option>{% endfor %}
</select></label>
<button type="submit">show</button>
</form>
{% if not conversations %}<p>No conversations.</p>{% endif %}
{% if chosen %}
<h2>{{ eligible_count }} of {{ rows | length }} entries may enter {{ chosen_name }}</h2>
{% if cut %}<p class="warn">Only the newest {{ shown }} entries are shown.</p>{% endif %}
<p class="muted">Whether an entry may enter is memory_entry(agent, entry, conversation)'s
answer (the database's eligibility rules). The rule shown is derived from what the read
functions return: the entry's state (list_memories), its current revision's visibility and
evidence (memory_history){% if operator_view %}, the evidence messages' audiences and the
sharing grants (export_agent){% else %}; the audiences and sharing grants behind a refusal
are shown to operators only{% endif %}.</p>
<table class="eligible"><tr><th>entry</th><th>revision</th><th>body</th><th>may enter</th>
<th>rule</th></tr>
{% for r in rows %}
<tr class="{{ 'ok' if r.eligible else 'out' }}">
<td class="mono"><a href="/agents/{{ agent_id }}/memory/{{ r.m.entry }}">{{ r.m.entry }}</a></td>
<td>{{ r.m.revision }}</td><td class="body">{{ r.m.body }}</td>
<td>{{ "yes" if r.eligible else "no" }}</td>
<td>{{ r.rule }}{% for d in r.details %}<br><span class="muted">{{ d }}</span>{% endfor %}</td>
</tr>
{% endfor %}</table>
{% endif %}
{% endblock %}
"""

_TIMELINE = """\
{% extends "base.html" %}
{% from "diff.html" import diff %}
{% block title %}timeline of {{ handle }} · agent_state inspector{% endblock %}
{% block content %}
<h1>Timeline of {{ handle }}</h1>
<form class="moment" method="get" action="/agents/{{ agent_id }}/timeline">
<label>state at (UTC)
<input type="datetime-local" name="at" step="0.001" value="{{ at_input }}"></label>
<label>compare with an earlier moment (UTC, optional)
<input type="datetime-local" name="since" step="0.001" value="{{ since_input }}"></label>
<input type="hidden" name="at_exact" value="{{ at_exact }}">
<input type="hidden" name="since_exact" value="{{ since_exact }}">
<button type="submit">show</button>
{% if at %}<a href="/agents/{{ agent_id }}/timeline">now</a>{% endif %}
</form>
{% if at %}
<h2>State at {{ at }}</h2>
<h3>Persona</h3>
{% if persona %}<p>revision {{ persona.revision }}, active since {{ persona.activated_at }}</p>
<pre class="persona">{{ persona.body }}</pre>{% else %}<p>No persona was active then.</p>{% endif %}
<h3>Profile</h3>
{% if profile %}<p>revision {{ profile.revision }}</p><pre>{{ profile.text }}</pre>
{% else %}<p>No profile yet.</p>{% endif %}
<h3>Tool grants</h3>
{% if grants %}<table><tr><th>tool</th><th>revision</th><th>enabled</th><th>config</th></tr>
{% for g in grants %}<tr><td class="mono">{{ g.tool }}</td><td>{{ g.revision }}</td>
<td>{{ "yes" if g.enabled else "no" }}</td><td><pre>{{ g.config }}</pre></td></tr>{% endfor %}
</table>{% else %}<p>No tool grants then.</p>{% endif %}
<h3>The whole state then (export_markdown)</h3>
<pre>{{ markdown }}</pre>
{% if since %}
<h2>What changed from {{ since }} to {{ at }}</h2>
{{ diff(changes) }}
{% endif %}
{% endif %}
<h2>{% if since %}Changes between the two moments{% else %}Every change{% endif %}</h2>
<p class="muted">Pick a time to see the state right after that change.</p>
{% if cut %}<p class="warn">Only the first {{ shown }} changes{% if since %} between the two
moments{% endif %} are shown, oldest first: pick a later moment to see more.</p>{% endif %}
{% if events %}
<table><tr><th>at</th><th>kind</th><th>object</th><th>operation</th><th>revision</th><th>by</th></tr>
{% for e in events %}
<tr><td class="mono"><a href="?at={{ e.at_query }}">{{ e.at }}</a></td><td>{{ e.kind }}</td>
<td class="mono">{% if e.kind in ("memory", "share") and e.object %}
<a href="/agents/{{ agent_id }}/memory/{{ e.object }}">{{ e.object }}</a>
{%- else %}{{ e.object or "" }}{% endif %}</td>
<td>{{ e.operation }}</td><td>{{ e.revision if e.revision is not none else "" }}</td>
<td>{{ e.changed_by }}</td></tr>
{% endfor %}</table>
{% else %}<p>No changes.</p>{% endif %}
{% endblock %}
"""

_RUNS = """\
{% extends "base.html" %}
{% from "diff.html" import run_link %}
{% block title %}runs of {{ handle }} · agent_state inspector{% endblock %}
{% block content %}
<h1>Runs of {{ handle }}</h1>
{% if cut %}<p class="warn">Only the newest {{ shown }} runs are shown.</p>{% endif %}
{% if runs %}
<table><tr><th>run</th><th>status</th><th>created</th><th>finished</th><th>tokens</th>
<th>cost (USD)</th><th>tool calls</th><th>continues</th></tr>
{% for r in runs %}
<tr><td class="mono"><a href="/agents/{{ agent_id }}/runs/{{ r.run }}">{{ r.run }}</a></td>
<td>{{ r.status }}</td><td class="mono">{{ r.created_at }}</td>
<td class="mono">{{ r.finished_at or "" }}</td><td>{{ r.spent_tokens }}</td>
<td>{{ r.spent_cost_usd }}</td><td>{{ r.spent_tool_calls }}</td>
<td class="mono">{{ run_link(agent_id, r.continued_from) }}</td></tr>
{% endfor %}</table>
{% else %}<p>No runs.</p>{% endif %}
{% endblock %}
"""

_RUN = """\
{% extends "base.html" %}
{% from "diff.html" import run_link %}
{% block title %}run · agent_state inspector{% endblock %}
{% block content %}
<h1>Run of {{ handle }}</h1>
<table>
<tr><th>run</th><td class="mono">{{ state.run }}</td></tr>
<tr><th>status</th><td>{{ state.status }}</td></tr>
<tr><th>started</th><td class="mono">{{ state.started_at }}</td></tr>
<tr><th>finished</th><td class="mono">{{ state.finished_at or "" }}</td></tr>
<tr><th>conversation</th><td class="mono">{{ state.conversation or "" }}</td></tr>
<tr><th>trigger message</th><td class="mono">{{ state.trigger_message or "" }}</td></tr>
<tr><th>continues</th><td class="mono">{{ run_link(agent_id, state.continued_from) }}</td></tr>
<tr><th>continued by</th><td class="mono">{{ run_link(agent_id, state.continued_by) }}</td></tr>
<tr><th>latest checkpoint</th>
<td>{{ state.checkpoint if state.checkpoint is not none else "none" }}</td></tr>
</table>
<h2>Budget</h2>
<svg xmlns="http://www.w3.org/2000/svg" class="budget" role="img" width="{{ chart.width }}"
 height="{{ chart.height }}" viewBox="0 0 {{ chart.width }} {{ chart.height }}">
<title>budget: spent against limits</title>
{% for b in chart.bars %}
<text x="0" y="{{ b.y + 14 }}" font-size="12" fill="#1d2430">{{ b.name }}</text>
<rect x="{{ chart.left }}" y="{{ b.y }}" width="{{ chart.bar }}" height="18"
 fill="#eef1f5" stroke="#d5dae1"/>
<rect class="spent" x="{{ chart.left }}" y="{{ b.y }}" width="{{ b.filled }}" height="18"
 fill="{{ b.colour }}"/>
<text x="{{ chart.left + chart.bar + 8 }}" y="{{ b.y + 14 }}" font-size="12"
 fill="#1d2430">{{ b.label }}</text>
{% endfor %}
</svg>
{% if over_run %}
<h3>Spent over the run, as a share of each limit</h3>
<svg xmlns="http://www.w3.org/2000/svg" class="over-run" role="img" width="{{ over_run.width }}"
 height="{{ over_run.height }}" viewBox="0 0 {{ over_run.width }} {{ over_run.height }}">
<title>budget spent over the run</title>
<rect x="{{ over_run.left }}" y="{{ over_run.top }}" width="{{ over_run.plot_width }}"
 height="{{ over_run.plot_height }}" fill="#fff" stroke="#d5dae1"/>
<line x1="{{ over_run.left }}" x2="{{ over_run.left + over_run.plot_width }}"
 y1="{{ over_run.limit_y }}" y2="{{ over_run.limit_y }}" stroke="#cf222e"
 stroke-dasharray="4 3"/>
<text x="2" y="{{ over_run.limit_y + 4 }}" font-size="11" fill="#cf222e">limit</text>
<line x1="{{ over_run.left }}" x2="{{ over_run.left + over_run.plot_width }}"
 y1="{{ over_run.half_y }}" y2="{{ over_run.half_y }}" stroke="#eef1f5"/>
<text x="2" y="{{ over_run.half_y + 4 }}" font-size="11" fill="#6e7781">50%</text>
<text x="2" y="{{ over_run.zero_y + 4 }}" font-size="11" fill="#6e7781">0</text>
{% for l in over_run.lines %}
<polyline fill="none" stroke="{{ l.colour }}" stroke-width="2" points="{{ l.points }}"/>
<text x="{{ over_run.left + loop.index0 * 190 }}"
 y="{{ over_run.top + over_run.plot_height + 20 }}" font-size="12"
 fill="{{ l.colour }}">{{ l.label }}</text>
{% endfor %}
</svg>
<p class="muted">From {{ over_run.start }} to {{ over_run.end }}; a line without a limit is
drawn against its own total.</p>
{% endif %}
{% if ledger %}
<h2>Prompt snapshots</h2>
{% for snap in ledger.snapshots %}
<div class="snapshot">
<h3>snapshot {{ snap.snapshot_id }}</h3>
<p class="muted">{{ snap.created_at }}; persona revision {{ snap.persona_revision }};
sha256 <span class="mono">{{ snap.prompt_sha256 }}</span>
{% if snap.redacted_at %}; <span class="bad">redacted {{ snap.redacted_at }}</span>{% endif %}</p>
<pre class="prompt">{{ snap.prompt }}</pre>
<p>memory revisions used:</p>
{% if snap.memories %}<table><tr><th>entry</th><th>revision</th><th>body then</th></tr>
{% for m in snap.memories %}<tr><td class="mono">
<a href="/agents/{{ agent_id }}/memory/{{ m.entry }}">{{ m.entry }}</a></td>
<td>{{ m.revision }}</td><td class="body">{{ m.body }}</td></tr>{% endfor %}
</table>{% else %}<p class="muted">none</p>{% endif %}
<p>messages used:</p>
{% if snap.messages %}<table><tr><th>message</th><th>author</th><th>text</th>
<th>audience</th></tr>
{% for m in snap.messages %}<tr><td class="mono">{{ m.message }}</td><td>{{ m.author }}</td>
<td class="body">{{ m.body }}</td>
<td>{% if m.public %}public{% else %}{{ m.audience | join(", ") }}{% endif %}</td></tr>
{% endfor %}</table>{% else %}<p class="muted">none</p>{% endif %}
</div>
{% else %}<p>No snapshots.</p>{% endfor %}
<h2>Model calls</h2>
{% if ledger.model_calls %}
<table><tr><th>model call</th><th>provider / model</th><th>status</th><th>tokens</th>
<th>cost (USD)</th><th>snapshot</th><th>request</th><th>response</th></tr>
{% for c in ledger.model_calls %}<tr><td class="mono">{{ c.model_call_id }}</td>
<td>{{ c.provider }} / {{ c.model }}</td><td>{{ c.status }}</td><td>{{ c.tokens }}</td>
<td>{{ c.cost_usd }}</td><td class="mono">{{ c.snapshot_id or "" }}</td>
<td><pre>{{ c.request_json }}</pre></td><td><pre>{{ c.response_json }}</pre></td></tr>
{% endfor %}</table>{% else %}<p>No model calls.</p>{% endif %}
<h2>Tool calls</h2>
{% if ledger.tool_calls %}
<table class="tool-calls"><tr><th>tool call</th><th>tool</th><th>grant revision</th>
<th>input</th><th>outcome</th><th>results</th></tr>
{% for c in ledger.tool_calls %}<tr{% if c.unconfirmed %} class="warn"{% endif %}>
<td class="mono">{{ c.tool_call_id }}</td><td class="mono">{{ c.tool_name }}</td>
<td>{{ c.grant_revision }}</td><td><pre>{{ c.input_json }}</pre></td>
<td>{{ c.outcome }}{% if c.unconfirmed %} (unconfirmed){% endif %}</td>
<td>{% for r in c.results %}{{ r.result_no }}: {{ r.status }}<pre>{{ r.output_json }}</pre>
{% else %}none{% endfor %}</td></tr>
{% endfor %}</table>{% else %}<p>No tool calls.</p>{% endif %}
<h2>Checkpoints</h2>
{% if ledger.checkpoints %}
<table><tr><th>checkpoint</th><th>at</th><th>frontier</th></tr>
{% for cp in ledger.checkpoints %}<tr><td>{{ cp.checkpoint }}</td>
<td class="mono">{{ cp.created_at }}</td><td><pre>{{ cp.frontier_json }}</pre></td></tr>
{% endfor %}</table>{% else %}<p>No checkpoints.</p>{% endif %}
{% else %}
<p class="refused">The run's snapshots, model calls, tool calls and checkpoints are read
with export_agent, which is for operators: this role sees what recover_run returns.</p>
{% endif %}
<h2>Unconfirmed tool calls</h2>
{% if unconfirmed %}
<p>Their effect is unknown: check before repeating them.</p>
<table><tr><th>tool call</th><th>tool</th><th>run</th><th>input</th><th>result</th>
<th>output</th><th>recorded</th></tr>
{% for c in unconfirmed %}
<tr class="warn"><td class="mono">{{ c.tool_call }}</td><td class="mono">{{ c.tool }}</td>
<td class="mono">{{ c.run }}</td><td><pre>{{ c.input }}</pre></td><td>{{ c.result }}</td>
<td><pre>{{ c.output }}</pre></td><td class="mono">{{ c.recorded_at }}</td></tr>
{% endfor %}</table>
{% else %}<p>None: every tool call's outcome is known.</p>{% endif %}
<h2>Frontier</h2><pre>{{ frontier }}</pre>
<h2>Task context</h2><pre>{{ task_context }}</pre>
<h2>Detail</h2><pre>{{ detail }}</pre>
<details><summary>recover_run, whole</summary><pre>{{ raw }}</pre></details>
{% endblock %}
"""

_VERIFY = """\
{% extends "base.html" %}
{% block title %}verify · agent_state inspector{% endblock %}
{% block content %}
<h1>verify()</h1>
{% if refused %}
<p class="refused">verify() is for operators: role {{ role }} is not one, and the database
refused it ({{ refused }}). Connect with an operator's DSN to see the report.</p>
{% elif violations %}
<p class="bad">{{ violations | length }} invariant(s) broken by stored rows.</p>
<table><tr><th>check</th><th>object</th><th>detail</th></tr>
{% for v in violations %}<tr><td>{{ v.check_name }}</td><td class="mono">{{ v.object }}</td>
<td>{{ v.detail }}</td></tr>{% endfor %}</table>
{% else %}<p class="ok">Every invariant holds over the stored rows.</p>{% endif %}
{% if heads %}
<h2>Chain heads</h2>
<p class="muted">Each agent's current head (chain_head): keep it outside the database and
give it back to verify(agent, expected_head) later.</p>
<table class="heads"><tr><th>agent</th><th>records</th><th>digest</th><th>covers up to</th></tr>
{% for h in heads %}<tr><td><a href="/agents/{{ h.agent.agent }}">{{ h.agent.handle }}</a></td>
<td>{{ h.head.position }}</td><td class="mono">{{ h.head.digest }}</td>
<td class="mono">{{ h.head.recorded_at }}</td></tr>{% endfor %}</table>
{% endif %}
{% endblock %}
"""

_ERROR = """\
{% extends "base.html" %}
{% block title %}{{ title }} · agent_state inspector{% endblock %}
{% block content %}
<h1>{{ title }}</h1>
<p class="refused">{{ message }}</p>
{% endblock %}
"""

_TEMPLATES = {
    "base.html": _BASE,
    "diff.html": _DIFF,
    "agents.html": _AGENTS,
    "agent.html": _AGENT,
    "memory.html": _MEMORY,
    "entry.html": _ENTRY,
    "eligible.html": _ELIGIBLE,
    "timeline.html": _TIMELINE,
    "runs.html": _RUNS,
    "run.html": _RUN,
    "verify.html": _VERIFY,
    "error.html": _ERROR,
}


def environment() -> Environment:
    """The templates, autoescaped (every one, whatever its name), undefined names fail."""
    return Environment(
        loader=DictLoader(_TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=False,
    )
