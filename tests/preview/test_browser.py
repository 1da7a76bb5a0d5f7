"""The preview in a real browser (headless Debian Chromium through Playwright; skipped with the reason where
either is missing): the page for a few draft states against PNG screenshots with a tolerance, the live update
after an edit (measured and reported), the Content-Security-Policy against scripts that try to run, and images
loaded only from the URLs the draft names.

Screenshots: ``screenshots/preview-*.png`` are both the docs' pictures and this test's references;
``TENANTDECK_UPDATE_SCREENSHOTS=1`` writes them anew (look at them before committing).
"""

from __future__ import annotations

import http.server
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tenantdeck.draft.session import DraftSession
from tenantdeck.preview.model import AppRef
from tenantdeck.preview.server import PreviewServer
from tests.preview import browser as chromium

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(chromium.why_not() is not None,
                                                  reason=chromium.why_not() or "")]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"
#: a pixel differs when a channel moves by more than this; a picture matches while at most TOLERANCE of its
#: pixels differ (anti-aliasing and font hinting move a few edge pixels between runs, a changed colour or layout
#: moves thousands)
CHANNEL = 40
TOLERANCE = 0.005
W = "apps[0].widgets[0]"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium.chromium() as b:
        yield b


@pytest.fixture
def session(tmp_path: Path) -> DraftSession:
    from tenantdeck.cli import cli

    path = tmp_path / "d.yaml"
    assert CliRunner().invoke(cli, ["init", str(path)]).exit_code == 0
    return DraftSession.open(path, validate=False)


@pytest.fixture
def served(session: DraftSession) -> Iterator[PreviewServer]:
    server = PreviewServer(session, AppRef())
    server.start()
    yield server
    server.stop()


def open_page(browser: Any, server: PreviewServer) -> Any:
    page = browser.new_page(viewport=chromium.VIEWPORT)
    page.goto(server.url)
    chromium.settled(page, server.version)
    return page


def compare(png: bytes, name: str) -> None:
    """The screenshot against ``screenshots/<name>.png``, within the tolerance."""
    from io import BytesIO

    from PIL import Image, ImageChops

    reference = SCREENSHOTS / f"{name}.png"
    if not reference.exists() and chromium.REQUIRED and not os.environ.get("TENANTDECK_UPDATE_SCREENSHOTS"):
        pytest.fail(f"{reference} is missing: TENANTDECK_UPDATE_SCREENSHOTS=1 writes it (CI compares, never writes)")
    if os.environ.get("TENANTDECK_UPDATE_SCREENSHOTS") or not reference.exists():
        reference.write_bytes(png)
        pytest.skip(f"wrote {reference.name}: compare on the next run")
    got = Image.open(BytesIO(png)).convert("RGB")
    want = Image.open(reference).convert("RGB")
    assert got.size == want.size, (got.size, want.size)
    diff = ImageChops.difference(got, want).convert("L").point(lambda v: 255 if v > CHANNEL else 0)
    changed = diff.histogram()[255]
    share = changed / (got.size[0] * got.size[1])
    assert share <= TOLERANCE, f"{name}: {changed} pixels ({share:.2%}) differ from {reference}"


STATES: dict[str, list[tuple[str, Any]]] = {
    "preview-sample": [],
    "preview-reordered": [
        (f"{W}.sidebar.sidebar_navigation_sequence", ["settings", "groups", "calls", "chats", "users"]),
        (f"{W}.sidebar.users", False),
        (f"{W}.style.primary_color", "#6A1B9A"),
        (f"{W}.style.background_color", "#263238"),
        (f"{W}.style.foreground_color", "#ECEFF1"),
        (f"{W}.main.allow_message_reactions", False),
        (f"{W}.main.show_typing_indicators", False),
        (f"{W}.main.enable_sending_messages", False),
    ],
    "preview-custom-css": [
        (f"{W}.style.custom_css", ".cc-widget{border-radius:0;font-family:monospace}\n"
                                  ".cc-own{background:#212121}\n.cc-sidebar{background:#fff3e0}"),
        (f"{W}.style.custom_js", "document.title = 'custom_js ran'"),
    ],
}


@pytest.mark.parametrize("state", sorted(STATES))
def test_the_page_of_a_draft_state_matches_its_screenshot(browser: Any, served: PreviewServer, state: str) -> None:
    for path, value in STATES[state]:
        served.session.set(path, value)
    page = open_page(browser, served)
    try:
        frame = chromium.front(page)
        order = frame.evaluate("[...document.querySelectorAll('[data-section]')].map(e => e.dataset.section)")
        want = {"preview-reordered": ["settings", "groups", "chats"]}.get(  # the sample hides calls
            state, ["chats", "users", "groups", "settings"])
        assert order == want
        assert page.title().startswith("tenantdeck preview")
        compare(page.screenshot(), state)
    finally:
        page.close()


def test_each_edit_reaches_the_page_without_a_reload(browser: Any, served: PreviewServer,
                                                     record_property: Any, capsys: Any) -> None:
    page = open_page(browser, served)
    try:
        page.evaluate("""() => {
            window.notReloaded = true; window.swapped = [];
            new MutationObserver(() => window.swapped.push(Date.now()))
                .observe(document.body, {attributes: true, attributeFilter: ['data-version']});
        }""")
        session = served.session
        edits = [
            ("primary colour", f"{W}.style.primary_color", "#C62828",
             "getComputedStyle(document.querySelector('.cc-send')).backgroundColor === 'rgb(198, 40, 40)'"),
            ("sidebar toggle", f"{W}.sidebar.groups", False,
             "document.querySelector('[data-section=groups]') === null"),
            ("custom_css line", f"{W}.style.custom_css", ".cc-widget{outline:4px solid rgb(0, 200, 0)}",
             "getComputedStyle(document.querySelector('.cc-widget')).outlineColor === 'rgb(0, 200, 0)'"),
        ]
        took: dict[str, float] = {}
        for label, path, value, check in edits:
            seen = page.evaluate("window.swapped.length")
            start = time.time() * 1000  # the browser's Date.now() reads the same clock
            session.set(path, value)
            chromium.until(page, f"window.swapped.length > {seen}")
            took[label] = page.evaluate(f"window.swapped[{seen}]") - start
            assert chromium.front(page).evaluate(check), f"{label}: the page swapped in a frame without it"
        assert page.evaluate("window.notReloaded === true"), "the page was updated in place, not reloaded"
        for label, ms in took.items():
            record_property(f"preview_latency_ms[{label}]", round(ms, 1))
        with capsys.disabled():
            print("\npreview live update (edit -> page):", ", ".join(f"{k} {v:.0f} ms" for k, v in took.items()))
    finally:
        page.close()


def test_no_script_runs_but_the_pages_own(browser: Any, served: PreviewServer) -> None:
    session = served.session
    session.set(f"{W}.style.custom_js", "window.customJsRan = true; document.title = 'PWNED'")
    session.set(f"{W}.style.custom_css", "</style><script>window.cssScriptRan = true</script><style>")
    session.set(f"{W}.name", "<img src=x onerror=\"window.nameRan = true\">")
    page = open_page(browser, served)
    try:
        page.evaluate("""() => {
            window.violations = [];
            document.addEventListener('securitypolicyviolation', e => window.violations.push(e.violatedDirective));
            const s = document.createElement('script'); s.textContent = 'window.injectedRan = true';
            document.body.append(s);
            const i = document.createElement('img'); i.setAttribute('onerror', 'window.handlerRan = true');
            i.src = 'x:'; document.body.append(i);
        }""")
        chromium.until(page, "window.violations.length >= 2")
        ran = page.evaluate("[window.customJsRan, window.cssScriptRan, window.nameRan, window.injectedRan, "
                            "window.handlerRan]")
        assert ran == [None, None, None, None, None]
        assert not page.title().endswith("PWNED")
        assert any(v.startswith("script-src") for v in page.evaluate("window.violations"))
        frame = chromium.front(page)
        assert frame.evaluate("document.scripts.length") == 0
        facts = page.inner_text("#facts")
        assert "custom_js: present" in facts and "not run" in facts
    finally:
        page.close()


def test_custom_css_cannot_reach_outside_the_widgets_frame(browser: Any, served: PreviewServer) -> None:
    served.session.set(f"{W}.style.custom_css", "header, #facts, .info, body { display: none !important }\n"
                                                "* { position: fixed !important; inset: -5000px !important }")
    page = open_page(browser, served)
    try:
        header = page.query_selector("header").bounding_box()
        frame = page.query_selector("iframe.front").bounding_box()
        assert header is not None and header["height"] > 20, "the page's banner is untouched"
        assert page.is_visible("#facts")
        assert frame is not None and frame["y"] >= header["height"], "the widget stays inside its frame"
        hidden = chromium.front(page).evaluate("getComputedStyle(document.body).display")
        assert hidden == "none", "inside its frame, custom_css applies"
    finally:
        page.close()


class _Images(http.server.BaseHTTPRequestHandler):
    """Answers every GET with a 1x1 PNG and records the path: what the browser asked for."""

    asked: list[str] = []
    PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                        "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201e2e6ba4c0000000049454e44ae426082")

    def do_GET(self) -> None:
        type(self).asked.append(self.path)
        self.send_response(200)
        self.send_header("content-type", "image/png")
        self.send_header("content-length", str(len(self.PNG)))
        self.end_headers()
        self.wfile.write(self.PNG)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def images() -> Iterator[str]:
    _Images.asked = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Images)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("network", [True, False])
def test_images_load_only_from_the_drafts_urls_and_only_with_network(browser: Any, session: DraftSession,
                                                                     images: str, network: bool) -> None:
    session.set(f"{W}.style.docked_layout_icon_open", f"{images}/icons/open.png?size=28")
    session.set(f"{W}.style.docked_layout_icon_close", f"{images}/icons/close.png")
    session.set(f"{W}.style.custom_css", f"@import url({images}/evil.css);\n"
                                         f".cc-widget{{background-image:url({images}/tracker.png)}}")
    server = PreviewServer(session, AppRef(), allow_network=network)
    server.start()
    page = browser.new_page(viewport=chromium.VIEWPORT)
    try:
        page.goto(server.url)
        chromium.settled(page, server.version)
        frame = chromium.front(page)
        if network:
            chromium.until(frame, "[...document.images].length === 2 && "
                                  "[...document.images].every(i => i.complete && i.naturalWidth === 1)")
            # each frame of the page may load them (the hidden one holds the widget too): nothing else is asked for
            assert sorted(set(_Images.asked)) == ["/icons/close.png", "/icons/open.png?size=28"]
        else:
            assert frame.evaluate("document.images.length") == 0
            assert "offline" in frame.inner_text(".td-launcher")
            assert _Images.asked == []
    finally:
        page.close()
        server.stop()
