"""Issue 32, item 5: every string the service holds is hostile, and none reaches a terminal or a file raw.

The account (``tests/hostile_account.py``) has every string field the sandbox stores, found by walking its tables
and the draft's models rather than listed by hand, set to OSC 52, ``ESC [2J``, BEL, NUL, U+202E, U+2066-2069 or
10 KB of text, in turn. Then:

- every command that shows or writes the account's data runs on it (``pull``, ``validate``, ``diff`` in each
  format, ``plan``, ``push --yes``, ``history``, ``policy list``, ``audit``), and neither its output nor any file
  it wrote holds a raw control or bidi character (the draft holds them as YAML escapes and reads back the same);
- the editor opens the pulled draft at 80x24 and every screen, tab and modal is walked, checked on the cells the
  widgets drew and on what Textual wrote to the (recording) driver;
- ``listen`` prints a delivery holding every payload safe, as text and as JSON Lines;
- the browser preview's page of every app (with web payloads on top: markup, scripts, handlers, a ``</style>``)
  runs nothing but tenantdeck's own script: parsed as HTML everywhere, and in Chromium where it is installed.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from textual.drivers.headless_driver import HeadlessDriver
from textual.pilot import Pilot
from textual.screen import Screen

from tenantdeck.draft.emit import scalar
from tests.hostile_account import OSC52, PAYLOADS, RAW, assert_clean, poison
from tests.tui.pilot import settle

POLICIES = """\
format: 1
policies:
  - name: hook-names
    check: {field: "webhooks[*].name", equals: Orders}
    message: every webhook is called Orders
  - name: one-listing
    check: {field: "widgets[*].sidebar.user_listing", same: true}
    severity: warning
    message: one user listing everywhere
  - name: named
    check: {cel: "app.name.startsWith('A')"}
    severity: warning
    message: names start with A
"""


@pytest.fixture
def account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The built-in ``local`` sandbox, in ``tmp_path``, with every string hostile; the current directory."""
    from tenantdeck.targets import local_target

    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_PROFILE", "TENANTDECK_KEY", "TENANTDECK_SECRET"):
        monkeypatch.delenv(name, raising=False)
    for name, sub in (("DATA", "data"), ("CONFIG", "config"), ("CACHE", "cache")):
        monkeypatch.setenv(f"TENANTDECK_{name}_DIR", str(tmp_path / sub))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(tmp_path)
    db = local_target().sandbox_db
    assert db is not None
    assert poison(db) > 100  # every string the seeded account holds: a few hundred
    return tmp_path


def cli(*args: str) -> Any:
    from tenantdeck.cli import cli as group

    result = CliRunner().invoke(group, list(args), standalone_mode=True)
    out = result.stdout + result.stderr
    assert "Traceback" not in out, (args, out)
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, out, result.exception)
    assert_clean(out, f"tenantdeck {' '.join(args)}")
    return result


def written_files(root: Path) -> list[Path]:
    """Every file tenantdeck wrote under ``root``: the draft, lock, base snapshot, plan, journal, history (the
    sandbox's own database and the caches excluded: the service's storage, not tenantdeck's output)."""
    skip = {root / "data", root / "cache"}
    return [p for p in root.rglob("*") if p.is_file() and not any(s in p.parents for s in skip)]


def assert_files_clean(root: Path) -> None:
    files = written_files(root)
    assert any(p.name == "d.yaml" for p in files)
    for path in files:
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:  # binary (the workspace's random key): no text for anyone to read
            continue
        assert_clean(text, str(path.relative_to(root)))


def hostile_edits(draft: Path) -> None:
    """Changes to push, in the hostile words: a new app named with every payload, a webhook renamed."""
    text = draft.read_text()
    name = scalar(PAYLOADS[-1])
    text = text.replace("\napps:\n", f"\napps:\n  - name: {name}\n    region: eu\n", 1)
    draft.write_text(text)


def test_every_command_keeps_hostile_strings_off_the_terminal_and_out_of_its_files(account: Path) -> None:
    from tenantdeck.draft import load_draft

    draft = account / "d.yaml"
    (account / "d.policies.yaml").write_text(POLICIES)
    pulled = cli("pull", "--draft", "d.yaml")
    assert pulled.exit_code == 0, pulled.stderr
    text = draft.read_text()
    assert "\\e]52;c;U1RURVNU\\e\\\\" in text and "\\u202E" in text, "the service's words, escaped, in the draft"
    loaded = load_draft(draft)
    assert loaded.draft is not None
    assert any(OSC52 in a.name or "\u202e" in a.name or "\u2066" in a.name for a in loaded.draft.apps), \
        "the draft reads back as the service's exact strings"

    cli("validate", "d.yaml")
    for fmt in ("text", "markdown", "json"):
        cli("diff", "--draft", "d.yaml", "--format", fmt)
    cli("diff", "--offline", "--draft", "d.yaml")
    for fmt in ("text", "json"):
        cli("policy", "list", "--draft", "d.yaml", "--format", fmt)
    for fmt in ("text", "json"):
        cli("audit", "--draft", "d.yaml", "--format", fmt)

    hostile_edits(draft)
    cli("diff", "--draft", "d.yaml")
    for fmt in ("text", "markdown"):
        cli("plan", "--draft", "d.yaml", "--format", fmt)
    planned = cli("plan", "--draft", "d.yaml", "--out", "d.plan.json")
    assert planned.exit_code in (0, 2, 9), planned.stdout + planned.stderr
    pushed = cli("push", "--yes", "--draft", "d.yaml", "--allow-violation", "hook-names", "--reason",
                 f"review {PAYLOADS[3]}")
    assert pushed.exit_code == 0, pushed.stdout + pushed.stderr
    for fmt in ("text", "json"):
        history = cli("history", "--draft", "d.yaml", "--format", fmt)
        assert history.exit_code == 0
    cli("pull", "--draft", "d.yaml")  # a second pull merges into the existing draft (ruamel's path)
    assert_files_clean(account)
    json_out = cli("diff", "--draft", "d.yaml", "--format", "json")
    json.loads(json_out.stdout)  # still JSON: the escapes are JSON's own


# -- the editor ------------------------------------------------------------------------------------------------

#: what Textual itself writes when it draws: colours and attributes (SGR), cursor moves, hyperlinks (OSC 8),
#: synchronized output, cursor visibility and the pointer's shape (OSC 22); anything else with ESC came from data
TEXTUAL_OWN = re.compile(r"\x1b\[[0-9;:]*m|\x1b\[\d+;\d+H|\x1b\]8;[^\x1b\x07]*\x1b\\|\x1b\[\?(?:2026|25)[hl]"
                         r"|\x1b\]22;[a-z-]+\x07")


class CapturingDriver(HeadlessDriver):
    """Textual's headless driver, except that the app treats it as a terminal: ``App._display`` renders every
    update and writes it here, exactly as it would to the Linux driver (which only queues it for a thread)."""

    @property
    def is_headless(self) -> bool:
        return False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.written: list[str] = []

    def write(self, data: str) -> None:
        self.written.append(data)


class Walk:
    """Each screen the walk reaches is checked twice: on the cells the widgets drew (every call site escaped
    its data, so the user sees ``\\x1b`` and ``\\u202e``) and on what was written to the terminal (nothing raw,
    whatever any widget drew: tui/safe_output.py)."""

    def __init__(self, pilot: Pilot[Any]) -> None:
        self.pilot = pilot
        self.seen: list[str] = []

    @property
    def driver(self) -> CapturingDriver:
        driver = self.pilot.app._driver
        assert isinstance(driver, CapturingDriver)
        return driver

    async def check(self, where: str) -> None:
        await settle(self.pilot, rounds=2)
        app = self.pilot.app
        self.seen.append(f"{where}: {type(app.screen).__name__}")
        assert_clean(drawn_outside_inputs(app), f"{where} ({type(app.screen).__name__}), drawn")
        terminal = "".join(self.driver.written)
        self.driver.written.clear()
        assert_clean(TEXTUAL_OWN.sub("", terminal), f"{where} ({type(app.screen).__name__}), written")

    async def press(self, where: str, *keys: str) -> None:
        await self.pilot.press(*keys)
        await self.check(where)

    async def back_to(self, screen: type[Screen[Any]]) -> None:
        for _ in range(6):
            if isinstance(self.pilot.app.screen, screen):
                return
            await self.pilot.press("escape")
            await settle(self.pilot, rounds=1)
        assert isinstance(self.pilot.app.screen, screen), (self.pilot.app.screen, self.seen[-4:])


def drawn_outside_inputs(app: Any) -> str:
    """The screen's cells as the widgets drew them, except inside text inputs: an input edits the value itself,
    so it holds the service's characters as they are (escaping them would change the data on the next keystroke);
    what reaches the terminal from it is checked with everything else, and is clean (tui/safe_output.py)."""
    from textual.strip import Strip
    from textual.widgets import Input

    inputs = [w.region for w in app.screen.query(Input) if w.display and w.region] + behind_a_modal(app, Input)
    lines = []
    for y, line in enumerate(app.screen._compositor.render_update(full=True).strips):
        strip = Strip([segment for part in line for segment in part])  # a line is the strips of its widgets
        cuts = sorted((r.x, r.right) for r in inputs if r.y <= y < r.bottom)
        x, parts = 0, []
        for start, end in cuts:
            parts.append(strip.crop(x, max(start, x)).text)
            x = max(x, end)
        parts.append(strip.crop(x, strip.cell_length).text)
        lines.append("".join(parts))
    return "\n".join(lines)


def behind_a_modal(app: Any, kind: type[Any]) -> list[Any]:
    """The cells of the ``kind`` widgets of the screens a modal is drawn over that show through it: those the modal
    leaves to its translucent background. A modal with its own footer is laid out one row higher than one without,
    so a field of the screen behind can show below it."""
    from textual.errors import NoWidget
    from textual.geometry import Region

    front = app.screen
    if not front.is_modal:
        return []
    behind = []
    for screen in reversed(app.screen_stack[:-1]):
        behind += [w.region for w in screen.query(kind) if w.display and w.region]
        if not screen.is_modal:
            break
    shown = []
    for region in behind:
        for y in range(region.y, region.bottom):
            shown += [Region(x, y, 1, 1) for x in range(region.x, region.right)
                      if _transparent(front, x, y, NoWidget)]
    return shown


def _transparent(front: Any, x: int, y: int, no_widget: type[Exception]) -> bool:
    try:
        return front.get_widget_at(x, y)[0] is front
    except no_widget:
        return True


def leave_hostile_recovery(draft: Path) -> None:
    """An earlier session's unsaved edits holding the service's words raw (typed, or pasted, by that session)."""
    from tenantdeck.draft import recovery

    base = draft.read_text()
    edited = base.replace("format: 1\n", f"format: 1\n# {PAYLOADS[-1]}\n# {PAYLOADS[3]}\n", 1)
    recovery.write(recovery.recovery_path(draft), recovery.render(
        draft, edited, base, written=f"now{PAYLOADS[2]}", pid=4242, host=f"host{PAYLOADS[0]}"))


@pytest.mark.slow
def test_every_screen_and_tab_of_the_editor_keeps_hostile_strings_off_the_terminal(account: Path) -> None:
    from tenantdeck.targets import local_target
    from tenantdeck.tui import navigation
    from tenantdeck.tui.screens.app_screen import TABS
    from tenantdeck.tui.screens.apps_screen import AppsScreen
    from tenantdeck.tui.screens.restore import RestoreScreen
    from tests.tui.pilot import make_app

    draft = account / "d.yaml"
    (account / "d.policies.yaml").write_text(POLICIES)
    assert cli("pull", "--draft", "d.yaml").exit_code == 0
    poison(local_target().sandbox_db, start=3)  # the service changed since: Pull (F5) and Review (F6) show it
    leave_hostile_recovery(draft)
    app = make_app(draft)
    app.driver_class = CapturingDriver

    async def flow() -> None:
        async with app.run_test(headless=False, size=(80, 24), notifications=True) as pilot:
            walk = Walk(pilot)
            await walk.check("start")
            assert isinstance(app.screen, RestoreScreen), app.screen
            await walk.press("restore dialog, kept for later", "k")
            await walk.back_to(AppsScreen)
            apps = app.editor.get("apps")
            for row in range(len(apps)):
                await walk.press(f"apps list, row {row}", "down")
            for index in range(len(apps)):
                app.open_app(index)
                await walk.check(f"app {index}")
                app_screen = type(app.screen)
                for digit, (tab, *_rest) in enumerate(TABS, 1):
                    await walk.press(f"app {index}, tab {digit} {tab}", str(digit))
                    await walk.press(f"app {index}, tab {tab}, next field", "tab")
                await walk.press(f"app {index}, webhooks", "7")
                hooks = app.editor.get(f"apps[{index}].webhooks") or []
                for row in range(len(hooks)):
                    await walk.press(f"app {index}, webhook row {row}", "down" if row else "home")
                if hooks:
                    await walk.press(f"app {index}, webhook form", "e")
                    await walk.press(f"app {index}, webhook form, next field", "tab")
                    await walk.back_to(app_screen)
                    await walk.press(f"app {index}, delete webhook? (confirm)", "d")
                    await walk.back_to(app_screen)  # Escape: no
                    await walk.press(f"app {index}, send a test event", "t")
                    await walk.back_to(app_screen)
                    assert app.editor.get(f"apps[{index}].webhooks") == hooks, "nothing deleted"
                await walk.press(f"app {index}, extensions", "5", "home")
                for row in range(len(app.editor.get(f"apps[{index}].extension_settings") or {}) + 3):
                    await walk.press(f"app {index}, extension row {row} settings", "s")
                    await walk.back_to(app_screen)
                    await walk.press(f"app {index}, extension row {row + 1}", "down")
                await walk.press(f"app {index}, help", "f1")
                await walk.back_to(app_screen)
                await walk.back_to(AppsScreen)
            await walk.press("palette", "ctrl+p")
            await walk.press("palette, typed", *"pu")
            await walk.back_to(AppsScreen)
            for name in ("help", "problems", "pull", "review", "history", "events", "bulk_edit", "presets",
                         "policies"):
                navigation.show(app, name)
                await walk.check(name)
                await walk.press(f"{name}, next", "tab")
                await walk.press(f"{name}, down", "down")
                await walk.back_to(AppsScreen)
            navigation.show(app, "pull")
            await walk.check("pull again")
            await walk.press("pull, written into the draft", "y")  # the service's new words, spliced in
            await walk.back_to(AppsScreen)
            await walk.press("saved", "f2")
            assert not app.editor.session.dirty
            assert_files_clean(account)  # the splice and the save wrote them escaped
            assert "\\e]52;c;U1RURVNU\\e\\\\" in draft.read_text(), "the service's words, escaped"
            await walk.press("new app", "n")
            await walk.back_to(AppsScreen)
            await walk.press("delete app? (confirm)", "delete")
            await walk.back_to(AppsScreen)
            assert len(walk.seen) > 100, walk.seen

    asyncio.run(flow())


@pytest.mark.e2e
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_listen_prints_a_delivery_of_every_payload_safe(fmt: str) -> None:
    """``listen`` (text, and JSON Lines for other tools): a delivery whose path, trigger and data hold every
    payload. tests/test_textsafe.py has the text mode's escapes; this is every payload, in both formats."""
    import subprocess

    import httpx

    from tests import procs
    from tests.test_textsafe import _drain, _env

    listen = procs.tenantdeck("listen", "--port", "0", "--format", fmt, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env={**_env(), "NO_COLOR": "1"})
    try:
        assert listen.stderr is not None
        url = re.search(r"receiving on (http://127\.0\.0\.1:\d+)", listen.stderr.readline())
        assert url is not None
        body = {"trigger": "".join(PAYLOADS[:5]), "data": {p: p for p in PAYLOADS}}
        answer = httpx.post(url.group(1) + "/hooks/%1B%5B2J%E2%80%AE%07", json=body, timeout=10)
        assert answer.status_code == 200
        out, err = _drain(listen)
    finally:
        if listen.poll() is None:
            listen.kill()
            listen.communicate(timeout=10)
    assert out.strip(), err
    assert_clean(out + err, f"listen --format {fmt}")
    if fmt == "json":
        assert json.loads(out.splitlines()[0])["trigger"] == "".join(PAYLOADS[:5]), "the delivery, as data"


# -- the browser preview -------------------------------------------------------------------------------------------

#: what a web page acts on, put on top of the service's words in the fields the preview shows: markup, a script, an
#: event handler, a way out of an attribute or a style element, a policy directive, a javascript: URL
WEB_PAYLOADS = [
    "<script>window.pwned = 1</script>",
    "\"><img src=x onerror=\"window.pwned = 2\">",
    "</style><script>window.pwned = 3</script><style>",
    "javascript:window.pwned = 4",
    "https://x.example/a.png; script-src * 'unsafe-inline'",
    "</iframe></title><svg onload=\"window.pwned = 5\">",
    "<!-- --> ]]> {{7*7}} ${7*7}",
]
WEB_FIELDS = ["name", "extends", "style.custom_css", "style.custom_js", "style.docked_layout_icon_open",
              "style.docked_layout_icon_close", "style.primary_color", "sidebar.recent_chat_listing",
              "sidebar.sidebar_navigation_sequence"]


def test_the_browser_preview_of_the_hostile_account_runs_no_value_as_code(account: Path) -> None:
    """Issue 39: the preview page of every app of the pulled hostile account (and of one with web payloads on top)
    holds exactly tenantdeck's one script and no handler, frame or way out of its style element (parsed as HTML),
    no raw control or bidi character; and where Chromium exists, no value runs in it (none sets ``window.pwned``)."""
    import httpx

    from tenantdeck.draft.session import DraftSession
    from tenantdeck.preview.model import AppRef
    from tenantdeck.preview.server import PreviewServer
    from tests.preview import browser as chromium
    from tests.preview.htmlcheck import assert_runs_nothing

    assert cli("pull", "--draft", "d.yaml").exit_code == 0
    session = DraftSession.open(account / "d.yaml", validate=False)
    apps = list(range(len(session.get("apps"))))
    with_widgets = [i for i in apps if isinstance(session.get(f"apps[{i}]"), dict) and session.get(f"apps[{i}]")
                    .get("widgets")]
    assert with_widgets, "the seeded account has widgets"
    webbed = with_widgets[0]
    assert RAW.search(session.get(f"apps[{webbed}].name")), "the service's words are hostile"
    for n, key in enumerate(WEB_FIELDS):  # on top of the service's (hostile) words, where it has some
        path = f"apps[{webbed}].widgets[0].{key}"
        prior = session.get(path, None)
        payload = (prior if isinstance(prior, str) else "") + WEB_PAYLOADS[n % len(WEB_PAYLOADS)]
        session.set(path, [payload, "chats"] if key.endswith("sequence") else payload)
    session.set(f"apps[{webbed}].name", session.get(f"apps[{webbed}].name") + WEB_PAYLOADS[1])
    pages: dict[int, str] = {}
    for network in (False, True):
        server = PreviewServer(session, AppRef(index=webbed), allow_network=network)
        server.start()
        try:
            for index in apps:  # with and without widgets (the page then says so, naming the app)
                server.follow(AppRef(index=index))
                text = httpx.get(server.url, timeout=30).text
                assert_runs_nothing(text)
                assert_clean(text, f"the preview page of apps[{index}]")
                _event_runs_nothing(server, f"apps[{index}]")
                pages.setdefault(index, server.url)
            if not network and chromium.why_not() is None:
                other = next(i for i in range(len(session.get("apps"))) if i != webbed)
                _runs_nothing_in_a_browser(server, [webbed, other])
        finally:
            server.stop()
    assert "pwned" in session.get(f"apps[{webbed}].widgets[0].style.custom_css")


def _event_runs_nothing(server: Any, where: str) -> None:
    """The server-sent update an open page gets for this app: its widget document is inert and every text the
    page's script sets holds no raw control or bidi character (JSON escapes them on the wire; the page would not)."""
    import httpx

    from tests.preview.htmlcheck import assert_update_runs_nothing, updates

    with httpx.stream("GET", server.url + "events", timeout=30) as response:
        payload = next(updates(response))
    assert_update_runs_nothing(payload)
    for key, value in payload.items():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str):
                assert_clean(text, f"the preview's update event of {where}: {key}")


def _runs_nothing_in_a_browser(server: Any, indexes: list[int]) -> None:
    """Each app's page loaded, and then each but the last arriving by a server-sent event into the page open on the
    last (the live path: the page's script swaps it into a frame, sets its texts): nothing runs either way."""
    from tenantdeck.preview.model import AppRef
    from tests.preview import browser as chromium

    with chromium.chromium() as browser:
        page = browser.new_page(viewport=chromium.VIEWPORT)
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

        def inert() -> None:
            assert page.evaluate("window.pwned") is None
            assert page.evaluate("document.scripts.length") == 1
            for frame in page.frames[1:]:
                assert frame.evaluate("[window.pwned, document.scripts.length]") == [None, 0]

        for index in indexes:
            server.follow(AppRef(index=index))
            page.goto(server.url)
            chromium.settled(page, server.version)
            inert()
        page.evaluate("window.stayed = true")
        for index in indexes[:-1]:  # live: the page stays, the other app's widget arrives as an event
            version = page.evaluate("document.body.dataset.version")
            server.follow(AppRef(index=index))
            chromium.until(page, f"document.body.dataset.version !== {json.dumps(version)}")  # swapped in
            inert()
            assert page.evaluate("window.stayed") is True, "updated in place, not reloaded"
        assert WEB_PAYLOADS[1] in page.inner_text("#title"), "the hostile app's name arrived, as text"
        assert dialogs == []
