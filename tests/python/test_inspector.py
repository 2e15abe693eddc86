"""`agent-state inspect` (SPEC 16): the read-only web pages, driven through Starlette's
TestClient as an operator and as a runtime role.

What is checked: every page renders with realistic data; the moment picker shows the
state as it was then; stored text is escaped (a hostile memory body, persona and
handle render as text); a runtime sees only its hosted agents and is refused verify()
politely; every method but GET and HEAD is 405; the command binds to the loopback
address by default.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID, uuid4

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")

from starlette.testclient import TestClient

import agent_state
from agent_state import Store
from agent_state.cli import _parser, main
from agent_state.inspector.app import CSP, create_app
from conftest import Require, RuntimeRole, TestRole, new_handle
from test_cli import PACKAGE_DIR, bundle_built, server_binaries, without_dsn

NEEDED = (
    "list_agents",
    "list_memories",
    "list_runs",
    "timeline",
    "persona_history",
    "profile_history",
    "tool_grants",
    "recover_run",
    "export_markdown",
    "verify",
)
BASE = "http://127.0.0.1:8765"
SCRIPT = "<script>alert(1)</script>"
IMG = '<img src=x onerror="alert(2)">'


@dataclass
class World:
    agent: UUID
    handle: str
    entry: UUID
    run: UUID
    tool_call: UUID
    tool: str
    persona_v1_at: str  # a moment when persona revision 1 was active, revision 2 not yet


@pytest.fixture
def world(store: Store, require: Require) -> World:
    require(*NEEDED)
    handle = new_handle("insp")
    a = store.create_agent(handle=handle, display_name="Inspector Test")
    store.revise_persona(agent=a, body="You are terse.\nYou answer in English.")
    store.revise_profile(agent=a, display_name="Inspector Test, renamed", settings={"tz": "UTC"})
    store.revise_persona(agent=a, body="You are terse.\nYou answer in French.")
    alice = store.resolve_actor(agent=a, connector="slack", external_id="U-ALICE")
    dm = store.open_conversation(agent=a, connector="slack", external_ref="D1", kind="direct")
    said = store.record_message(
        agent=a, conversation=dm, author=alice, body="I drink green tea", audience=[alice]
    )
    ref = store.remember(agent=a, body="Alice drinks tea", source_message=said, subject=alice)
    store.amend(agent=a, entry=ref.entry, expected_revision=1, body="Alice drinks green tea")
    tool = f"insp.weather.{uuid4().hex[:10]}"
    store.register_tool(name=tool, version="1", config_schema={"type": "object"})
    store.grant_tool(agent=a, tool=tool, enabled=True, config={"units": "metric"})
    run = store.start_run(
        agent=a, conversation=dm, trigger_message=said, budget={"tokens": 1000, "tool_calls": 4}
    )
    snap = store.snapshot_prompt(agent=a, run=run, prompt="persona\nAlice: tea?", messages=[said])
    call = store.record_model_call(
        agent=a, run=run, snapshot=snap, provider="test", model="m-1", request={},
        usage={"tokens": 900, "cost_usd": 0.002},
    )  # fmt: skip
    tc = store.record_tool_call(
        agent=a, run=run, tool=tool, input={"city": "Lisbon"}, model_call=call
    )
    store.record_tool_result(agent=a, tool_call=tc, output={"sent": "?"}, status="unconfirmed")
    events = store.timeline(agent=a)
    v1 = next(e for e in events if e.kind == "persona" and e.operation == "activate")
    return World(a, handle, ref.entry, run, tc, tool, v1.at.isoformat())


@pytest.fixture
def operator(dsn: str, make_role: Callable[..., TestRole]) -> Iterator[Store]:
    role = make_role("agent_state_operator")
    with agent_state.connect(role.dsn(dsn)) as s:
        yield s


def client(store: Store) -> TestClient:
    return TestClient(create_app(store), base_url=BASE)


def ok(c: TestClient, path: str, **params: str) -> str:
    r = c.get(path, params=params)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["content-security-policy"] == CSP
    assert "<script" not in r.text
    return r.text


def test_every_page_renders_for_an_operator(operator: Store, world: World) -> None:
    c = client(operator)
    a = world.agent
    index = ok(c, "/")
    assert f'href="/agents/{a}"' in index
    assert "Inspector Test, renamed" in index

    page = ok(c, f"/agents/{a}")
    assert "You answer in French." in page and "(active)" in page
    # what changed between persona revisions 1 and 2, as a line diff
    assert '<span class="del">-You answer in English.</span>' in page
    assert '<span class="add">+You answer in French.</span>' in page
    assert "+display_name: Inspector Test, renamed" in page  # the profile's diff
    assert world.tool in page and "units" in page

    memory = ok(c, f"/agents/{a}/memory")
    assert "Alice drinks green tea" in memory
    entry = ok(c, f"/agents/{a}/memory/{world.entry}")
    assert "revision 1: create" in entry and "revision 2: amend" in entry
    assert '<span class="add">+Alice drinks green tea</span>' in entry
    history = operator.memory_history(agent=a, entry=world.entry)
    assert history[0].source_messages and history[0].source_actor is not None
    assert str(history[0].source_messages[0]) in entry  # evidence message
    assert str(history[0].source_actor) in entry and "perspective" in entry

    timeline = ok(c, f"/agents/{a}/timeline")
    assert 'type="datetime-local"' in timeline and str(world.entry) in timeline

    runs = ok(c, f"/agents/{a}/runs")
    assert str(world.run) in runs
    run = ok(c, f"/agents/{a}/runs/{world.run}")
    assert "<svg" in run and "900 of 1000 (90%)" in run and "1 of 4 (25%)" in run
    assert str(world.tool_call) in run and "unconfirmed" in run and "Lisbon" in run

    verify = ok(c, "/verify")
    findings = operator.verify()
    if findings:
        assert "invariant(s) broken" in verify and findings[0].check_name in verify
    else:
        assert "Every invariant holds" in verify and "invariant(s) broken" not in verify


def test_moment_picker_shows_the_state_then(operator: Store, world: World) -> None:
    c = client(operator)
    then = ok(c, f"/agents/{world.agent}/timeline", at=world.persona_v1_at)
    persona = re.search(r'<pre class="persona">(.*?)</pre>', then, re.S)
    assert persona is not None
    assert persona.group(1) == "You are terse.\nYou answer in English."
    assert "French" not in then
    assert world.tool not in then.split("Every change")[0]  # not granted yet then
    now = ok(c, f"/agents/{world.agent}/timeline", at="2999-01-01T00:00")
    persona = re.search(r'<pre class="persona">(.*?)</pre>', now, re.S)
    assert persona is not None and "French" in persona.group(1)
    # two moments: what changed between them
    both = ok(c, f"/agents/{world.agent}/timeline", since=world.persona_v1_at, at="2999-01-01")
    assert '<span class="add">+&gt; You answer in French.</span>' in both
    # a browser drops trailing zeros of the milliseconds (.5 for .500)
    short = ok(c, f"/agents/{world.agent}/timeline", at="2999-01-01T00:00:00.5")
    assert "State at 2999-01-01 00:00:00.500000+00:00" in short
    # The input holds milliseconds; the form carries the exact moment beside it, used
    # while the input still shows it (a change at .123456 is not moved to .123000).
    exact = "2999-01-01T00:00:00.123456+00:00"
    page = ok(c, f"/agents/{world.agent}/timeline", at=world.persona_v1_at)
    assert f'name="at_exact" value="{world.persona_v1_at}"' in page
    kept = ok(c, f"/agents/{world.agent}/timeline", at="2999-01-01T00:00:00.123", at_exact=exact)
    assert "State at 2999-01-01 00:00:00.123456+00:00" in kept
    typed = ok(c, f"/agents/{world.agent}/timeline", at="2999-01-01T00:00:00.124", at_exact=exact)
    assert "State at 2999-01-01 00:00:00.124000+00:00" in typed
    bad = c.get(f"/agents/{world.agent}/timeline", params={"at": "<b>soon</b>"})
    assert bad.status_code == 400 and "&lt;b&gt;soon" in bad.text


def test_a_cut_listing_says_so(
    operator: Store, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listings show at most _MAX_LIST rows; when there were more, the page says so
    (it asks for one more row to know), and says nothing when the list is whole."""
    import agent_state.inspector.app as app

    def counts(c: TestClient) -> tuple[str, str]:
        """The index page's (live memories, runs) cells for the world's agent."""
        row = ok(c, "/").split(f'/agents/{world.agent}"', 1)[1].split("</tr>", 1)[0]
        cells = re.findall(r"<td>([^<]*)</td>", row)
        return cells[-2], cells[-1]

    monkeypatch.setattr(app, "_MAX_LIST", 1)
    assert counts(client(operator)) == ("1", "1")  # exactly the limit: no "+"
    monkeypatch.setattr(app, "_MAX_LIST", 1000)
    operator.note(agent=world.agent, body="a second entry")
    operator.start_run(agent=world.agent)
    c = client(operator)
    pages = {"memory": "entries are shown", "runs": "runs are shown", "timeline": "changes"}
    for page, words in pages.items():
        assert words not in ok(c, f"/agents/{world.agent}/{page}"), page
    monkeypatch.setattr(app, "_MAX_LIST", 1)
    assert counts(c) == ("1+", "1+")
    for page, words in pages.items():
        text = ok(c, f"/agents/{world.agent}/{page}")
        assert f"Only the {'first' if page == 'timeline' else 'newest'} 1 {words}" in text, page
    # the timeline shows just the one change it says it shows
    text = ok(c, f"/agents/{world.agent}/timeline")
    assert len(re.findall(r'<a href="\?at=', text)) == 1


def test_stored_text_is_escaped(operator: Store, store: Store, require: Require) -> None:
    require(*NEEDED, "note")
    handle = f"{SCRIPT} {uuid4().hex[:8]}"
    a = store.create_agent(handle=handle, display_name=IMG)
    store.revise_persona(agent=a, body=f"be nice {IMG}")
    ref = store.note(agent=a, body=SCRIPT)
    c = client(operator)
    pages = [
        ok(c, "/"),
        ok(c, f"/agents/{a}"),
        ok(c, f"/agents/{a}/memory"),
        ok(c, f"/agents/{a}/memory/{ref.entry}"),
        ok(c, f"/agents/{a}/timeline", at="2999-01-01T00:00"),
    ]
    for page in pages:
        assert "<img" not in page and "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[2]
    assert "be nice &lt;img src=x onerror=&#34;alert(2)&#34;&gt;" in pages[1]
    assert "&lt;img src=x onerror=&#34;alert(2)&#34;&gt;" in pages[0]


def test_runtime_sees_only_its_hosted_agent(
    store: Store, world: World, runtime_role: RuntimeRole, require: Require
) -> None:
    other = store.create_agent(handle=new_handle("insp-other"))
    store.grant_hosting(agent=world.agent, host=runtime_role.name)
    runtime_role.hosted.append(world.agent)
    with agent_state.connect(runtime_role.dsn) as rt:
        c = client(rt)
        index = ok(c, "/")
        assert f'href="/agents/{world.agent}"' in index
        assert str(other) not in index
        for path in ("", "/memory", "/timeline", "/runs", f"/runs/{world.run}"):
            ok(c, f"/agents/{world.agent}{path}")
        for path in ("", "/memory", "/timeline", "/runs"):
            r = c.get(f"/agents/{other}{path}")
            assert r.status_code in (403, 404), (path, r.status_code)
            assert "the database said: 42501" in r.text or "the database said: P0002" in r.text
        refused = c.get("/verify")
        assert refused.status_code == 403
        assert "verify() is for operators" in refused.text and "42501" in refused.text


def test_only_get_and_head(operator: Store, world: World) -> None:
    c = client(operator)
    for path in ("/", f"/agents/{world.agent}", "/verify", "/no/such/page"):
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            r = c.request(method, path)
            assert r.status_code == 405, (method, path)
            assert r.headers["allow"] == "GET, HEAD"
    assert c.head("/").status_code == 200
    # the policy: nothing but the app's own stylesheet, icon and forms
    assert CSP.startswith("default-src 'none';") and "unsafe" not in CSP
    assert "script-src" not in CSP  # falls back to default-src 'none'


def test_requests_for_another_host_are_refused(operator: Store) -> None:
    # a page read through DNS rebinding names the attacker's host, not a loopback one
    r = TestClient(create_app(operator), base_url="http://attacker.example").get("/")
    assert r.status_code == 400
    for base in ("http://localhost:8765", "http://[::1]:8765"):
        assert TestClient(create_app(operator), base_url=base).get("/").status_code == 200


def test_cli_binds_to_loopback_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    args = _parser().parse_args(["inspect"])
    assert args.host == "127.0.0.1" and args.port == 8765 and not args.allow_remote
    assert _parser().parse_args(["inspect", "--host", "::1", "--port", "0"]).host == "::1"
    # another address needs --allow-remote (which brings the token), checked before any
    # database is asked for
    for argv in (["inspect", "--host", "0.0.0.0"], ["inspect", "--host", "192.0.2.7"]):
        with pytest.raises(SystemExit) as exc:
            main([*argv, "--dsn", "host=/nonexistent"])
        assert exc.value.code == 2
        assert "not a loopback address" in capsys.readouterr().err
    # --demo starts its own database: a DSN with it is refused
    with pytest.raises(SystemExit) as exc:
        main(["inspect", "--demo", "--dsn", "host=/nonexistent"])
    assert exc.value.code == 2 and "--demo" in capsys.readouterr().err


def test_a_token_guards_a_remote_bind(operator: Store) -> None:
    token = "s3cret-token"
    app = create_app(operator, token=token)
    # served beyond loopback: any Host, but every request needs the token
    c = TestClient(app, base_url="http://inspector.example.net:8765")
    refused = c.get("/")
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"].startswith("Basic")
    assert refused.headers["content-security-policy"] == CSP
    assert c.get("/", auth=("any", "wrong")).status_code == 401
    assert c.get("/", headers={"Authorization": "Basic !!"}).status_code == 401
    assert c.get("/", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    page = c.get("/", auth=("any", token))
    assert page.status_code == 200 and "Agents" in page.text
    # still read-only, token or not
    assert c.post("/", auth=("any", token)).status_code == 405


def _row(page: str, entry: UUID) -> str:
    """The eligible-in table's row of ``entry``."""
    found = re.search(
        rf'<tr class="(ok|out)">\s*<td class="mono"><a href="[^"]*{entry}".*?</tr>', page, re.S
    )
    assert found is not None, entry
    return found.group(0)


def test_eligible_in_gives_each_rule(
    operator: Store, store: Store, world: World, runtime_role: RuntimeRole
) -> None:
    a = world.agent
    alice = store.resolve_actor(agent=a, connector="slack", external_id="U-ALICE")
    bob = store.resolve_actor(agent=a, connector="slack", external_id="U-BOB", display_name="Bob")
    dm = store.open_conversation(agent=a, connector="slack", external_ref="D1", kind="direct")
    team = store.open_conversation(agent=a, connector="slack", external_ref="C1", kind="group")
    said = store.record_message(
        agent=a, conversation=dm, author=alice, body="my PIN is 1234", audience=[alice]
    )
    store.record_message(
        agent=a, conversation=team, author=bob, body="hello all", audience=[alice, bob]
    )
    narrow = store.remember(
        agent=a, body="Alice's PIN", source_message=said, visibility="conversation"
    )
    gone = store.remember(agent=a, body="Alice likes jazz", source_message=said)
    store.forget(agent=a, entry=gone.entry)
    shared = store.remember(agent=a, body="Alice moved to Porto", source_message=said)
    store.share(agent=a, entry=shared.entry, revision=shared.revision, conversation=team)
    note = store.note(agent=a, body="Team lunch is on Fridays")

    c = client(operator)
    page = ok(c, f"/agents/{a}/eligible", conversation=str(team))
    # what may enter is memory_entry's answer, row by row
    for m in operator.list_memories(agent=a, include_forgotten=True):
        admitted = operator.memory_entry(agent=a, entry=m.entry, conversation=team)
        assert _row(page, m.entry).startswith(f'<tr class="{"ok" if admitted else "out"}">')
    assert "rule 1: the entry is forgotten" in _row(page, gone.entry)
    assert "visibility &#39;conversation&#39;: its evidence came from slack D1" in _row(
        page, narrow.entry
    )
    assert "rule 3: a sharing grant" in _row(page, shared.entry)
    assert "operator note" in _row(page, note.entry)
    tea = _row(page, world.entry)  # perspective, evidence seen by Alice only
    assert "Bob could not observe evidence message" in tea
    assert f"(its audience: {alice})" in tea  # no display name: the actor's id
    # 'conversation' visibility, evidence from this very conversation, kept out
    # because the audience grew since: the reason is the audience, not the place
    ops = store.open_conversation(agent=a, connector="slack", external_ref="C2", kind="group")
    carol = store.resolve_actor(
        agent=a, connector="slack", external_id="U-CAROL", display_name="Carol"
    )
    heard = store.record_message(
        agent=a, conversation=ops, author=bob, body="the offsite is in May", audience=[alice, bob]
    )
    local = store.remember(
        agent=a, body="The offsite is in May", source_message=heard, visibility="conversation"
    )
    store.record_message(
        agent=a, conversation=ops, author=carol, body="hi all", audience=[alice, bob, carol]
    )
    assert operator.memory_entry(agent=a, entry=local.entry, conversation=ops) is None
    row = _row(ok(c, f"/agents/{a}/eligible", conversation=str(ops)), local.entry)
    assert row.startswith('<tr class="out">')
    assert "Carol could not observe evidence message" in row
    assert "not from this conversation" not in row
    # the entry page lists the grant and the evidence message's audience
    entry = ok(c, f"/agents/{a}/memory/{shared.entry}")
    assert "slack C1 (group)" in entry and "my PIN is 1234" in entry

    # a runtime sees the same answers, the rule without the audiences it may not read
    store.grant_hosting(agent=a, host=runtime_role.name)
    runtime_role.hosted.append(a)
    with agent_state.connect(runtime_role.dsn) as rt:
        page = ok(client(rt), f"/agents/{a}/eligible", conversation=str(team))
        assert _row(page, world.entry).startswith('<tr class="out">')
        assert "shown to operators" in _row(page, world.entry)
        assert "Bob" not in _row(page, world.entry)
        run = ok(client(rt), f"/agents/{a}/runs/{world.run}")
        assert "export_agent, which is for operators" in run
    bad = c.get(f"/agents/{a}/eligible", params={"conversation": "<b>x</b>"})
    assert bad.status_code == 400 and "&lt;b&gt;x" in bad.text


def test_run_page_shows_snapshots_and_calls(operator: Store, world: World) -> None:
    page = ok(client(operator), f"/agents/{world.agent}/runs/{world.run}")
    assert "persona\nAlice: tea?" in page  # the prompt as snapshotted
    assert "I drink green tea" in page  # the message it used, with its text
    assert "m-1" in page and "900" in page  # the model call
    row = re.search(r'<tr class="warn">\s*<td class="mono">' + str(world.tool_call), page)
    assert row is not None  # the unconfirmed tool call, highlighted
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="over-run"' in page


@pytest.mark.slow
@pytest.mark.skipif(not bundle_built(), reason="bundled SQL not built: run make")
@pytest.mark.skipif(not server_binaries(), reason="no local PostgreSQL server binaries")
def test_inspect_demo_serves_a_throwaway_database() -> None:
    """``agent-state inspect --demo``: starts a throwaway PostgreSQL, loads the demo's
    agent, serves it; Ctrl-C stops it and removes the cluster."""
    pytest.importorskip("uvicorn")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    own_tmp = Path(tempfile.mkdtemp(prefix="inspect-demo-tmp-"))
    own_tmp.chmod(0o755)  # the postgres user runs the server when we are root
    env = without_dsn()
    env["TMPDIR"] = str(own_tmp)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_DIR), env.get("PYTHONPATH")) if p)
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_state", "inspect", "--demo", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        lines = []
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("agent-state inspect: http://"):
                break
        assert lines and lines[-1].startswith(f"agent-state inspect: http://127.0.0.1:{port}/")
        handle = re.search(r"demo data loaded \(agent (demo-[0-9a-f]+)\)", "".join(lines))
        assert handle is not None, lines
        for _ in range(100):  # uvicorn starts listening right after the line is printed
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
                    page = r.read().decode()
                break
            except (ConnectionRefusedError, urllib.error.URLError):
                time.sleep(0.1)
        assert handle.group(1) in page and "Demo Agent" in page
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
        left = sorted(p.name for p in own_tmp.iterdir())
        shutil.rmtree(own_tmp, ignore_errors=True)
    assert "Traceback" not in err, err
    assert left == [], left  # the throwaway cluster went with it


def test_inspect_demo_without_the_extra_refuses_before_starting_a_server(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the inspect extra, ``inspect --demo`` says which extra to install and
    exits 1, before any throwaway PostgreSQL is started."""
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn: ImportError
    with pytest.raises(SystemExit) as exc:
        main(["inspect", "--demo"])
    assert exc.value.code == 1
    err = capsys.readouterr().err
    assert "pip install 'agent-state[inspect]'" in err
    assert "throwaway PostgreSQL" not in err


def test_moments_parse_as_postgres_json_and_forms_write_them() -> None:
    from datetime import datetime, timezone

    from agent_state.inspector.ledger import iso_moment

    # PostgreSQL's JSON drops a fraction's trailing zeros; a form writes no zone.
    assert iso_moment("2026-01-02 03:04:05.12345+00:00").microsecond == 123450
    assert iso_moment("2026-01-02T03:04:05.1Z") == datetime(
        2026, 1, 2, 3, 4, 5, 100000, timezone.utc
    )
    assert iso_moment("2026-01-02T03:04").tzinfo is None
    with pytest.raises(ValueError):
        iso_moment("yesterday")
