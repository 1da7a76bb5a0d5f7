"""Issue 39's "done when", as an admin does it: the editor in tmux at 80x24, ``v`` on the App screen, the URL taken
from what the editor copied with OSC 52 (tmux's paste buffer, ``set-clipboard on``), the page in headless
Chromium; then a save of the draft by another editor (the draft watcher), and three edits made with keys: the
primary colour (typed, ``Enter`` writes it), a sidebar section (``Space``) and a line of ``custom_css`` (shown
as typed; written to the draft by leaving the area: ``Escape``, then ``Tab``).

For each edit: the time from the key that writes it (for custom_css, its last character; read just before
``tmux send-keys``) to the page swapping in the frame that shows it (``Date.now()`` in a MutationObserver on the
page; both are the machine's wall clock), so tmux, the terminal parser, the editor's loop, the server, the event
stream, the parse and the frame's load are all in it. Repeated ROUNDS times; prints the median and worst of
each, and /proc/loadavg before and after.

Usage: ``python bench/preview_tmux.py [ROUNDS [ESCAPE_TIME]]`` (10 rounds; tmux's own escape-time, or this many
ms). Needs tmux, Debian's chromium and playwright (the test extras). The editor runs on a tmux server of its own
(``-L``) with a fresh ``HOME``; both go at the end. docs/benchmarks.md, "Through the keys, in tmux".
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SOCKET = f"tenantdeck-bench-{os.getpid()}"
SESSION = "bench"
#: after typing, before the key that writes: the typed text is on screen and the editor idle again
SETTLE = 0.4


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=True).stdout


#: what a terminal sends for each key the bench presses
KEYS = {"Enter": b"\r", "Tab": b"\t", "BTab": b"\x1b[Z", "Space": b" ", "Escape": b"\x1b", "C-u": b"\x15",
        "End": b"\x1b[F", "1": b"1", "2": b"2", "v": b"v"}


class Terminal:
    """A tmux client attached to the editor's session in a pseudo-terminal of 80x24: the keys are bytes typed
    into it, as an admin's terminal (over SSH) sends them, so they pass tmux's own input parsing (its
    ``escape-time`` after a lone Escape included), not only the editor's. Its output is read and dropped."""

    def __init__(self) -> None:
        import fcntl
        import pty
        import struct
        import termios
        import threading

        pid, fd = pty.fork()
        if pid == 0:  # the child: the client
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
            os.execvp("tmux", ["tmux", "-L", SOCKET, "attach-session", "-t", SESSION])
        self.pid, self.fd = pid, fd
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        with contextlib.suppress(OSError):
            while os.read(self.fd, 65536):
                pass

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


TERMINAL: list[Terminal] = []


def keys(*names: str) -> None:
    for name in names:
        TERMINAL[0].write(KEYS[name])


def typed(text: str) -> None:
    TERMINAL[0].write(text.encode())


def screen() -> str:
    return tmux("capture-pane", "-t", SESSION, "-p")


def wait_for(ready: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        found = ready()
        if found:
            return found
        time.sleep(0.05)
    raise SystemExit(f"preview_tmux: no {what} after {timeout:.0f} s; the screen:\n{screen()}")


def footer() -> str:
    return screen().rstrip("\n").splitlines()[-1]


def clipboard() -> str | None:
    try:
        text = tmux("show-buffer")
    except subprocess.CalledProcessError:
        return None
    return text if text.startswith("http://") else None


class Page:
    """The preview page in Chromium, with the times its frames were swapped."""

    def __init__(self, page: Any) -> None:
        from tests.preview import browser as chromium

        self.page, self.chromium = page, chromium
        chromium.until(page, "document.getElementById('live').textContent === 'live'")
        page.evaluate("""() => { window.notReloaded = true; window.swapped = [];
            new MutationObserver(() => window.swapped.push(Date.now()))
                .observe(document.body, {attributes: true, attributeFilter: ['data-version']}); }""")

    def timed(self, key: str | Callable[[], object], check: str) -> float:
        """Press ``key`` (or do it); the milliseconds until the page's front frame satisfies ``check``."""
        start = time.time() * 1000
        key() if callable(key) else keys(key)
        self.chromium.until(self.page, "window.swapped.length > 0 && window.swapped.at(-1) >= " + f"{start:.0f}")
        deadline = time.monotonic() + 10
        while not self._holds(check):
            if time.monotonic() > deadline:
                raise SystemExit(f"preview_tmux: the page never showed {check}; the screen:\n{screen()}")
            time.sleep(0.002)
        return float(self.page.evaluate("window.swapped.at(-1)")) - start


    def _holds(self, check: str) -> bool:
        """``check`` in the front frame; False while that frame is being replaced (a swap during the evaluation:
        typed text arrives key by key)."""
        from playwright.sync_api import Error

        try:
            return bool(self.chromium.front(self.page).evaluate(check))
        except Error:
            return False


def other_editor(page: Page, rounds: int, home: str) -> list[float]:
    """Another editor's save of the draft (written beside it and renamed over it, as editors do), the editor in
    tmux having no unsaved edits: its draft watcher reloads the file, and the page follows."""
    draft = next(Path(home).rglob("demo/tenantdeck.yaml"))
    took = []
    for r in range(rounds):
        blue = 0x80 + 4 * r
        text = re.sub(r"primary_color: .*", f"primary_color: '#1020{blue:02X}'", draft.read_text(), count=1)
        spare = draft.with_name(".tenantdeck.yaml.other-editor")
        spare.write_text(text)
        took.append(page.timed(lambda: spare.replace(draft),  # noqa: B023 (called at once)
                               "getComputedStyle(document.querySelector('.cc-send')).backgroundColor"
                               f" === 'rgb(16, 32, {blue})'"))
        time.sleep(SETTLE)
    return took


def colours(page: Page, rounds: int) -> list[float]:
    keys("Tab", "Tab")  # the Style tab's second field: Primary colour
    wait_for(lambda: footer().startswith("⏎ Done"), "Primary colour field")
    took = []
    for r in range(rounds):
        red = 0x40 + 8 * r
        keys("C-u")
        typed(f"#{red:02X}2040")
        time.sleep(SETTLE)
        took.append(page.timed("Enter", "getComputedStyle(document.querySelector('.cc-send')).backgroundColor"
                                        f" === 'rgb({red}, 32, 64)'"))
        time.sleep(SETTLE)
        if r < rounds - 1:
            keys("Enter")  # back into the field
    return took


def sidebar(page: Page, rounds: int) -> list[float]:
    keys("2")  # the Sidebar tab: its first field is "Show Chats section"
    wait_for(lambda: "Show Chats section" in screen() and footer().startswith("space Flip"), "Sidebar tab")
    took = []
    for r in range(rounds):
        gone = r % 2 == 0
        want = "=== null" if gone else "!== null"
        took.append(page.timed("Space", f"document.querySelector('[data-section=chats]') {want}"))
        time.sleep(SETTLE)
    return took


def custom_css(page: Page, rounds: int, key: str) -> list[float]:
    """A line typed at the end of custom_css, timed from its last character: the page shows a code field's text
    as it is typed (the draft gets it when the area is left). Then the area is left with ``key`` (Escape or Tab),
    which writes it to the draft; that is not timed (with Escape it waits for tmux's ``escape-time``)."""
    if not footer().startswith("esc Done"):
        keys("1")
        wait_for(lambda: "Custom CSS" in screen(), "Style tab")
        for _ in range(12):  # to the Custom CSS area (its footer offers esc Done)
            keys("Tab")
            time.sleep(0.2)
            if footer().startswith("esc Done"):
                break
    took = []
    for r in range(rounds):
        green = 100 + 10 * r + (5 if key == "Tab" else 0)
        keys("End", "Enter")
        typed(f".cc-widget{{outline:4px solid rgb(0, {green}, 0)")
        # the burst typed and drawn before the last key is timed: a burst of 40 keys takes the editor a while on
        # a loaded machine, and that is not the time a key takes to reach the page
        wait_for(lambda: f"rgb(0, {green}, 0)" in screen(), "the typed line")  # noqa: B023 (called at once)
        time.sleep(SETTLE)
        took.append(page.timed(lambda: typed("}"), "getComputedStyle(document.querySelector('.cc-widget'))"
                                                   f".outlineColor === 'rgb(0, {green}, 0)'"))
        keys(key)
        time.sleep(SETTLE)
        keys("BTab")  # the key left for the next field: back into the area
        wait_for(lambda: footer().startswith("esc Done"), "Custom CSS area again")
    return took


def main(rounds: int, escape: int | None) -> None:
    from tests.preview import browser as chromium

    why = chromium.why_not() or (None if shutil.which("tmux") else "no tmux")
    if why:
        raise SystemExit(f"preview_tmux: {why}")
    home = tempfile.mkdtemp(prefix="tenantdeck-bench-home-")
    load = Path("/proc/loadavg").read_text().split()[:3]
    tmux("-f", "/dev/null", "new-session", "-d", "-s", SESSION, "-x", "80", "-y", "24",
         f"cd {ROOT} && HOME={home} exec {ROOT}/.venv/bin/tenantdeck edit --demo")
    results: dict[str, list[float]] = {}
    try:
        tmux("set", "-s", "set-clipboard", "on")
        TERMINAL.append(Terminal())
        if escape is not None:
            tmux("set", "-s", "escape-time", str(escape))
        escape_time = tmux("show", "-s", "-v", "escape-time").strip()
        tmux_version = tmux("-V").split()[-1]
        wait_for(lambda: "Acme Support" in screen(), "apps list")
        keys("Enter")
        wait_for(lambda: "Style  Sidebar" in screen(), "App screen")
        keys("v")
        url = wait_for(clipboard, "URL copied with OSC 52")
        with chromium.chromium() as browser:
            tab = browser.new_page(viewport=chromium.VIEWPORT)
            tab.goto(url)
            page = Page(tab)
            results["another editor's save"] = other_editor(page, rounds, home)
            results["primary colour (Enter)"] = colours(page, rounds)
            results["sidebar toggle (Space)"] = sidebar(page, rounds)
            results["custom_css line, its last key (then Escape)"] = custom_css(page, rounds, "Escape")
            results["custom_css line, its last key (then Tab)"] = custom_css(page, rounds, "Tab")
            assert tab.evaluate("window.notReloaded === true"), "the page was reloaded"
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True, check=False)
        socket = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / SOCKET
        socket.unlink(missing_ok=True)  # tmux leaves the socket's file behind
        for terminal in TERMINAL:
            terminal.close()
        shutil.rmtree(home, ignore_errors=True)
    after = Path("/proc/loadavg").read_text().split()[:3]
    print(f"preview through the keys, tmux {tmux_version} 80x24 (escape-time {escape_time} ms), {rounds} rounds "
          f"each; loadavg {' '.join(load)} before, {' '.join(after)} after ({os.cpu_count()} cores)")
    for label, took in results.items():
        print(f"  {label:26} median {statistics.median(took):4.0f} ms, worst {max(took):4.0f} ms   "
              + " ".join(f"{t:.0f}" for t in took))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10, int(sys.argv[2]) if len(sys.argv) > 2 else None)
