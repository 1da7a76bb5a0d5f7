"""``tenantdeck preview DRAFT [--app NAME]``: the widget of one app in a real browser, following the file live.

A thin shell over :class:`tenantdeck.preview.server.PreviewServer`: open the draft as the editor does (a
:class:`~tenantdeck.draft.session.DraftSession`, read only here), serve it on loopback behind a random token, and
read the file again whenever it changes on disk (the session's own watcher, checked every
:data:`POLL_SECONDS`): a save from any editor reaches the page well within 200 ms. Ctrl-C or SIGTERM stops it
(exit 130 or 143).
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Any, Final

import click

from tenantdeck import exitcodes
from tenantdeck.cli import output
from tenantdeck.cli.options import draft_input
from tenantdeck.hosts import is_loopback_host
from tenantdeck.textsafe import shown

#: how often the draft file's stat is compared (a changed file is then hashed and read again)
POLL_SECONDS: Final = 0.05


@click.command("preview")
@draft_input("The draft to show.")
@click.option("--app", "app_name", metavar="NAME", default=None, help="The app to show  [default: the first app]")
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback interface to serve on.")
@click.option("--port", default=0, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port (0 picks a free one; the URL names it). Fix it to forward it over SSH.")
@click.option("--allow-network", is_flag=True,
              help="Let the page load the launcher icons from the URLs the draft names (off: a placeholder).")
def command(draft_path: Path, app_name: str | None, host: str, port: int, allow_network: bool) -> None:
    """Serve a live preview of the chat widget of DRAFT's app (the first, or --app NAME) on loopback.

    Open the printed URL (it carries a random token; forward the port over SSH to open it on your machine). The
    page is tenantdeck's rendering of the documented widget v2 settings, not the vendor's widget bundle; it runs
    no script from the draft (custom_js is never executed). Every save of the draft reaches the page at once.
    """
    if not is_loopback_host(host):
        raise click.UsageError(f"refusing to serve on {host!r}: the preview serves loopback only (127.0.0.1, ::1)")
    from tenantdeck.draft.session import DraftSession
    from tenantdeck.preview.model import AppRef
    from tenantdeck.preview.server import PreviewServer

    if not draft_path.exists():
        output.error(f"{shown(str(draft_path))}: no such file (`tenantdeck init {draft_path}` writes a sample draft)")
        sys.exit(exitcodes.ERROR)
    session = DraftSession.open(draft_path, validate=False)
    for problem in session.problems if session.read_only else ():
        click.echo(problem.render(), err=True)
    names = [row.name for row in session.app_rows()]
    if app_name is not None and app_name not in names:
        output.warning(f"the draft has no app named '{shown(app_name)}' (yet): the page says so until it has")
    server = PreviewServer(session, AppRef(name=app_name), host=host, port=port, allow_network=allow_network)
    try:
        server.start()
    except OSError as exc:
        raise click.ClickException(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    click.echo(server.url)
    click.echo(f"tenantdeck preview: {shown(str(draft_path))} on {server.url} (loopback; over SSH: "
               f"ssh -L {server.port}:localhost:{server.port} HOST); Ctrl-C stops", err=True)
    sys.exit(_follow(session, server))


def _follow(session: Any, server: Any) -> int:
    """Read the draft again each time it changes on disk, until Ctrl-C or SIGTERM; the exit code."""
    stopped: list[int] = []

    def on_term(signum: int, frame: object) -> None:
        stopped.append(exitcodes.TERMINATED)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        while not stopped:
            time.sleep(POLL_SECONDS)
            if session.changed_on_disk():
                session.reload()
    except KeyboardInterrupt:
        stopped.append(exitcodes.INTERRUPTED)
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.stop()
    click.echo("tenantdeck preview: stopped", err=True)
    return stopped[0]
