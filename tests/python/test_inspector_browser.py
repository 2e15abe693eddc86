"""`agent-state inspect` in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by Selenium, against the app served by uvicorn on a free
loopback port. Nothing is downloaded: Selenium is pointed at /usr/bin/chromedriver.

What is checked: every page renders with no console error (a blocked script, a refused
style or a missing resource would log one); the moment picker's form changes the state
shown; a stored ``<script>`` or ``onerror`` body shows as text and does not run; a
runtime role's pages lack the agents it does not host. Screenshots of the main pages
are written to ``$AGENT_STATE_SCREENSHOTS`` (default ``build/inspector-screenshots``).

Skips, saying why, when Chromium, its driver, Selenium or uvicorn is missing
(``scripts/install-deps`` installs them).
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("uvicorn")
pytest.importorskip("selenium", reason="selenium is not installed (pip install selenium)")

import uvicorn
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import agent_state
from agent_state import Store
from agent_state._demo import Demo
from agent_state.inspector.app import create_app
from conftest import ROOT, Require, RuntimeRole, TestRole, new_handle

# Selenium is given the system driver; Selenium Manager must not look anything up.
os.environ.setdefault("SE_OFFLINE", "true")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not (os.access(CHROMIUM, os.X_OK) and os.access(DRIVER, os.X_OK)):
    pytest.skip(
        "headless Chromium is not installed: apt-get install chromium chromium-driver "
        "(scripts/install-deps installs them)",
        allow_module_level=True,
    )

SHOTS = Path(os.environ.get("AGENT_STATE_SCREENSHOTS") or ROOT / "build" / "inspector-screenshots")
# Had either run, the title would read PWNED (a word the planted text itself lacks).
PLANTED_SCRIPT = "<script>document.title='PW'+'NED'</script>"
PLANTED_IMG = "<img src=x onerror=\"document.title='PW'+'NED'\">"
NEEDED = (
    "list_agents",
    "list_memories",
    "list_runs",
    "list_conversations",
    "memory_entry",
    "timeline",
    "recover_run",
    "snapshot_sources",
    "export_agent",
    "export_markdown",
    "chain_head",
    "verify",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serving(store: Store) -> Iterator[str]:
    """The inspector over ``store`` on a free loopback port, in a thread."""
    port = _free_port()
    config = uvicorn.Config(create_app(store), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the inspector did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    options = Options()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1280,900",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def visit(driver: Any, url: str) -> str:
    """Loads ``url`` and returns the page's visible text; fails on any console error."""
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(url)
    errors = console_errors(driver)
    assert errors == [], (url, errors)
    text: str = driver.find_element(By.TAG_NAME, "body").text
    return text


def screenshot(driver: Any, name: str) -> Path:
    """The whole page (the window made as tall as the page) as SHOTS/name.png."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, min(max(int(height) + 40, 600), 4000))
    path = SHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    driver.set_window_size(1280, 900)
    assert path.stat().st_size > 1000
    return path


@dataclass
class World:
    agent: UUID
    handle: str
    team: UUID
    dm: UUID
    peanuts: UUID
    run: UUID
    unconfirmed_run: UUID
    unconfirmed_call: UUID


@pytest.fixture(scope="module")
def world(dsn: str) -> World:
    """The demo's agent (persona revert, memories, a turn), plus an amendment, a sharing
    grant and a second run whose tool call's outcome is unknown."""
    with agent_state.connect(dsn) as s:
        names = {r[0] for r in s.connection.execute(  # type: ignore[union-attr]
            "SELECT proname FROM pg_proc WHERE pronamespace = 'agent_state'::regnamespace"
        )}  # fmt: skip
        missing = [n for n in NEEDED if n not in names]
        if missing:
            pytest.skip("not in the database yet: " + ", ".join(missing))
        demo = Demo(s, io.StringIO())
        demo.run()
        a = demo.agent
        peanuts = next(m for m in s.list_memories(agent=a) if "peanut" in m.body)
        s.amend(
            agent=a, entry=peanuts.entry, expected_revision=peanuts.revision,
            body="Alice is allergic to peanuts and tree nuts.",
        )  # fmt: skip
        # The demo remembers this in its part on meaning, which it skips where the
        # database has no pgvector: written here then, as the demo does.
        bob_fact = next((m for m in s.list_memories(agent=a) if "Bob" in m.body), None)
        if bob_fact is None:
            s.remember(
                agent=a, body="Bob is organising the team offsite.",
                source_message=demo.m_team, subject=demo.bob,
            )  # fmt: skip
            bob_fact = next(m for m in s.list_memories(agent=a) if "Bob" in m.body)
        s.share(agent=a, entry=bob_fact.entry, revision=bob_fact.revision, conversation=demo.dm)
        run = s.list_runs(agent=a)[0].run
        second = s.start_run(
            agent=a, conversation=demo.dm, budget={"tokens": 1000, "tool_calls": 2}
        )
        snap = s.snapshot_prompt(
            agent=a, run=second, prompt="book the table", memory=[], messages=[]
        )
        call = s.record_model_call(
            agent=a, run=second, snapshot=snap, provider="demo", model="echo-1",
            request={}, usage={"tokens": 850},
        )  # fmt: skip
        tool = s.tool_grants(agent=a)[0].tool
        tc = s.record_tool_call(
            agent=a, run=second, tool=tool, input={"flight": "LH124"}, model_call=call
        )
        s.record_tool_result(agent=a, tool_call=tc, output={"sent": "?"}, status="unconfirmed")
        handle = next(x.handle for x in s.list_agents() if x.agent == a)
        return World(a, handle, demo.team, demo.dm, peanuts.entry, run, second, tc)


@pytest.fixture
def operator(dsn: str, make_role: Callable[..., TestRole]) -> Iterator[Store]:
    role = make_role("agent_state_operator")
    with agent_state.connect(role.dsn(dsn)) as s:
        yield s


def test_every_page_renders_without_console_errors(
    browser: Any, operator: Store, world: World
) -> None:
    a = world.agent
    with serving(operator) as base:
        index = visit(browser, base + "/")
        assert world.handle in index
        screenshot(browser, "agents")
        page = visit(browser, f"{base}/agents/{a}")
        assert "Persona" in page and "Tool grants" in page
        screenshot(browser, "agent")
        assert "Memory of" in visit(browser, f"{base}/agents/{a}/memory")
        screenshot(browser, "memory")
        entry = visit(browser, f"{base}/agents/{a}/memory/{world.peanuts}")
        # the evidence message with its text and audience
        assert "I am allergic to peanuts" in entry and "Alice" in entry
        assert "revision 2: amend" in entry
        screenshot(browser, "entry")
        assert "Every change" in visit(browser, f"{base}/agents/{a}/timeline")
        screenshot(browser, "timeline")
        runs = visit(browser, f"{base}/agents/{a}/runs")
        assert str(world.run) in runs
        run = visit(browser, f"{base}/agents/{a}/runs/{world.unconfirmed_run}")
        assert "850 of 1000 (85%)" in run
        rows = browser.find_elements(By.CSS_SELECTOR, "table.tool-calls tr.warn")
        assert len(rows) == 1 and str(world.unconfirmed_call) in rows[0].text
        run = visit(browser, f"{base}/agents/{a}/runs/{world.run}")
        assert "Prompt snapshots" in run and "memory revisions used" in run
        assert browser.find_elements(By.CSS_SELECTOR, "svg.budget rect.spent")
        assert browser.find_elements(By.CSS_SELECTOR, "svg.over-run polyline")
        screenshot(browser, "run")
        verify = visit(browser, base + "/verify")
        assert "Chain heads" in verify and world.handle in verify
        screenshot(browser, "verify")


def test_eligible_in_names_the_rule(browser: Any, operator: Store, world: World) -> None:
    a = world.agent
    with serving(operator) as base:
        visit(browser, f"{base}/agents/{a}/eligible?conversation={world.team}")
        rows = {
            r.find_element(By.CSS_SELECTOR, "td a").text: r
            for r in browser.find_elements(By.CSS_SELECTOR, "table.eligible tr.ok, tr.out")
        }
        for m in operator.list_memories(agent=a, include_forgotten=True):
            admitted = operator.memory_entry(agent=a, entry=m.entry, conversation=world.team)
            row = rows[str(m.entry)]
            assert ("ok" in row.get_attribute("class")) == (admitted is not None)
        peanuts = rows[str(world.peanuts)]
        assert "rule 2" in peanuts.text and "Bob could not observe" in peanuts.text
        screenshot(browser, "eligible")
        # the direct conversation: the shared entry is admitted by its grant (rule 3)
        text = visit(browser, f"{base}/agents/{a}/eligible?conversation={world.dm}")
        assert "rule 3: a sharing grant" in text


def _ms_after(moment: datetime) -> datetime:
    """The first whole millisecond at or after ``moment`` (the picker's precision)."""
    whole = moment.replace(microsecond=moment.microsecond // 1000 * 1000)
    return whole if whole == moment else whole + timedelta(milliseconds=1)


def _loaded(before: str) -> Callable[[Any], bool]:
    """A wait condition: a page other than ``before``, with a moment, showing a persona."""

    def done(driver: Any) -> bool:
        url = driver.current_url
        return bool(
            url != before
            and "at=" in url
            and driver.execute_script("return document.readyState") == "complete"
            and driver.find_elements(By.CSS_SELECTOR, "pre.persona")
        )

    return done


def test_moment_picker_changes_what_is_shown(browser: Any, operator: Store, world: World) -> None:
    a = world.agent
    # Two moments the picker can express at which different personas were active.
    by_body: dict[str, datetime] = {}
    for e in operator.timeline(agent=a):
        if e.kind == "persona":
            m = _ms_after(e.at).astimezone(timezone.utc)
            active = operator.active_persona(agent=a, as_of=m)
            if active is not None:
                by_body.setdefault(active.body, m)
    assert len(by_body) >= 2, "the demo revises its persona"
    (body1, m1), (body2, m2) = list(by_body.items())[:2]
    with serving(operator) as base:
        visit(browser, f"{base}/agents/{a}/timeline")
        shown = []
        for moment in (m1, m2):
            field = browser.find_element(By.NAME, "at")
            value = moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]  # UTC, as the form says
            # A datetime-local field's keyboard entry depends on the locale: set its value.
            browser.execute_script("arguments[0].value = arguments[1]", field, value)
            before = browser.current_url
            browser.find_element(By.CSS_SELECTOR, "form.moment button").click()
            # The form's GET loads a new page (the browser may write the value shorter:
            # .230 as .23), so wait for a new URL with a moment in it.
            WebDriverWait(browser, 20, ignored_exceptions=(WebDriverException,)).until(
                _loaded(before)
            )
            assert console_errors(browser) == []
            shown.append(browser.find_element(By.CSS_SELECTOR, "pre.persona").text)
        screenshot(browser, "timeline-moment")
    assert shown == [body1, body2]


def test_planted_markup_does_not_run(
    browser: Any, operator: Store, store: Store, require: Require
) -> None:
    require(*NEEDED, "note")
    a = store.create_agent(handle=f"{PLANTED_SCRIPT}{uuid4().hex[:6]}", display_name=PLANTED_IMG)
    store.revise_persona(agent=a, body=f"persona {PLANTED_IMG}")
    ref = store.note(agent=a, body=f"note {PLANTED_SCRIPT} {PLANTED_IMG}")
    with serving(operator) as base:
        for path in ("/", f"/agents/{a}", f"/agents/{a}/memory", f"/agents/{a}/memory/{ref.entry}"):
            text = visit(browser, base + path)
            assert "PWNED" not in browser.title, path
            assert browser.find_elements(By.TAG_NAME, "script") == [], path
            assert browser.find_elements(By.CSS_SELECTOR, "img") == [], path
            assert PLANTED_SCRIPT in text or PLANTED_IMG in text, path  # shown as text


def test_a_runtime_sees_only_its_agent(
    browser: Any, store: Store, world: World, runtime_role: RuntimeRole
) -> None:
    other = store.create_agent(handle=new_handle("insp-browser-other"))
    hosted = store.create_agent(handle=new_handle("insp-browser-hosted"))
    store.grant_hosting(agent=hosted, host=runtime_role.name)
    runtime_role.hosted.append(hosted)
    other_handle = next(x.handle for x in store.list_agents() if x.agent == other)
    hosted_handle = next(x.handle for x in store.list_agents() if x.agent == hosted)
    with agent_state.connect(runtime_role.dsn) as rt, serving(rt) as base:
        index = visit(browser, base + "/")
        assert hosted_handle in index
        assert other_handle not in index and world.handle not in index
        links = [e.get_attribute("href") for e in browser.find_elements(By.CSS_SELECTOR, "td a")]
        assert links == [f"{base}/agents/{hosted}"]
        screenshot(browser, "runtime-agents")
        browser.get(f"{base}/agents/{other}")
        assert "Not visible to this role" in browser.find_element(By.TAG_NAME, "body").text
        assert other_handle not in browser.page_source
