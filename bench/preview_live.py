"""The browser preview's live update (issue 39): from an edit of the draft session to the page showing it, in
headless Chromium, repeated; prints the median, 90th percentile and worst, in milliseconds.

Two clocks are read, both the machine's wall clock: the edit's (``time.time()`` just before ``session.set``) and
the browser's (``Date.now()`` in a MutationObserver on the page, when it swaps in the frame with the new version),
so the polling of the test driver adds nothing. Usage: ``python bench/preview_live.py [EDITS]`` (default 30).
Needs Debian's chromium and playwright (the test extras); docs/preview.md, docs/benchmarks.md.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))


def main(edits: int) -> None:
    from click.testing import CliRunner

    from tenantdeck.cli import cli
    from tenantdeck.draft.session import DraftSession
    from tenantdeck.preview.model import AppRef
    from tenantdeck.preview.server import PreviewServer
    from tests.preview import browser as chromium

    why = chromium.why_not()
    if why:
        raise SystemExit(f"preview_live: {why}")
    draft = Path(tempfile.mkdtemp(prefix="tenantdeck-bench-")) / "d.yaml"
    CliRunner().invoke(cli, ["init", str(draft)])
    session = DraftSession.open(draft, validate=False)
    server = PreviewServer(session, AppRef())
    server.start()
    took: list[float] = []
    try:
        with chromium.chromium() as browser:
            page = browser.new_page(viewport=chromium.VIEWPORT)
            page.goto(server.url)
            chromium.settled(page, server.version)
            page.evaluate("""() => { window.swapped = [];
                new MutationObserver(() => window.swapped.push(Date.now()))
                    .observe(document.body, {attributes: true, attributeFilter: ['data-version']}); }""")
            for i in range(edits):
                seen = page.evaluate("window.swapped.length")
                start = time.time() * 1000
                session.set("apps[0].widgets[0].style.primary_color", f"#{(i * 37) % 256:02X}2040")
                chromium.until(page, f"window.swapped.length > {seen}")
                took.append(page.evaluate(f"window.swapped[{seen}]") - start)
                time.sleep(0.05)
    finally:
        server.stop()
    took.sort()
    p90 = took[int(len(took) * 0.9) - 1]
    print(f"preview live update, {edits} edits of the primary colour: median {statistics.median(took):.0f} ms, "
          f"p90 {p90:.0f} ms, worst {took[-1]:.0f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
