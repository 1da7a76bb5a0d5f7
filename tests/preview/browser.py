"""Headless Chromium for the preview's tests: Debian's ``chromium`` driven by Playwright through its executable
path (Playwright's own browser downloads are not used: CI and developers' machines reach only package registries).

Playwright rather than the DevTools protocol by hand: it waits for loads, reaches every frame (the widget's
sandboxed ``srcdoc`` frame included), reports console messages and takes PNG screenshots; by hand each of those is
a page of websocket code. Where Chromium or Playwright is missing, :func:`why_not` says so and the tests skip with
that reason (``.ci/run`` installs Chromium, so CI runs them).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: the Debian package's browser; TENANTDECK_CHROMIUM names another
CHROMIUM = os.environ.get("TENANTDECK_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: root in a container, no GPU, and no call home (a closed network refuses them, many at a time)
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
VIEWPORT = {"width": 1000, "height": 760}


#: set by .ci/run: a missing browser fails the browser tests instead of skipping them
REQUIRED = bool(os.environ.get("TENANTDECK_REQUIRE_BROWSER"))


def why_not() -> str | None:
    """Why the browser tests cannot run here, or None (always None where :data:`REQUIRED`: they run and fail)."""
    if REQUIRED:
        return None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    if not Path(CHROMIUM).is_file():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium with a new, empty profile (Playwright makes one per launch)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def until(page: Any, expression: str, timeout: float = 10.0) -> float:
    """Evaluate ``expression`` in the page until it is true; the seconds it took. The page's policy forbids
    ``eval``, so Playwright's ``wait_for_function`` cannot run there: ``evaluate`` goes through the DevTools
    protocol, which the policy does not govern."""
    start = time.perf_counter()
    while not page.evaluate(expression):
        if time.perf_counter() - start > timeout:
            raise AssertionError(f"not true after {timeout} s: {expression}")
        time.sleep(0.002)
    return time.perf_counter() - start


def front(page: Any) -> Any:
    """The frame that shows the widget now (the page loads the next version in the other and swaps)."""
    return page.query_selector("iframe.front").content_frame()


def settled(page: Any, version: int) -> None:
    """Wait until the page is connected and shows ``version`` of the draft."""
    until(page, "document.getElementById('live').textContent === 'live'")
    until(page, f"Number(document.body.dataset.version) >= {version:d}")
