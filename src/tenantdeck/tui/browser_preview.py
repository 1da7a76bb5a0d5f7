"""The editor's browser preview (issue 39): ``v`` on an App screen, or the palette's "Browser preview".

Thin on purpose: the server, the page and what they show are core (:mod:`tenantdeck.preview`). This keeps one
:class:`~tenantdeck.preview.server.PreviewServer` for the session (started on first use, on a free loopback port,
following the editor's open :class:`~tenantdeck.draft.session.DraftSession`, so every edit, undo, save and reload
reaches the page), points it at the app asked for, copies the URL to the clipboard (OSC 52: it works over SSH and
in tmux with ``set -g set-clipboard on``) and says it in a notification. While it runs, the editor's draft watcher
(``tui/safety.py``, every 2 s otherwise) looks at the file every :data:`DISK_INTERVAL` too, so a save from another
editor reaches the page within the issue's 200 ms, not two seconds later.
"""

from __future__ import annotations

import atexit
from typing import Any, Final

#: the attribute of the running app that holds the session's server
_ATTRIBUTE = "_tenantdeck_browser_preview"
#: ... and the one that holds its timer of the draft watcher
_WATCH = "_tenantdeck_browser_preview_watch"
#: how often the draft watcher checks the file while the preview runs (a ``stat`` unless it changed)
DISK_INTERVAL: Final = 0.05


def server_of(app: Any) -> Any:
    """The session's preview server, or None before the first use."""
    return getattr(app, _ATTRIBUTE, None)


def open_preview(app: Any, app_index: int, widget_index: int = 0, *, allow_network: bool | None = None) -> str | None:
    """Start (or re-point) the preview at ``apps[app_index]``; the URL, or None when it could not start (said)."""
    from tenantdeck.preview.model import AppRef
    from tenantdeck.preview.server import PreviewServer

    server = server_of(app)
    if server is None or not server.running:
        server = PreviewServer(app.editor.session, AppRef(index=app_index), allow_network=bool(allow_network))
        try:
            server.start()
        except OSError as exc:
            app.notify(f"The browser preview cannot start on 127.0.0.1: {exc.strerror or exc}.",
                       title="Browser preview", severity="error")
            return None
        setattr(app, _ATTRIBUTE, server)
        atexit.register(server.stop)  # the pages' streams closed before the process ends, whichever way it leaves
        _watch_disk(app)
    else:
        server.follow(AppRef(index=app_index))
        if allow_network is not None:
            server.set_allow_network(allow_network)
    url = server.url + (f"?widget={widget_index}" if widget_index else "")
    app.copy_to_clipboard(url)
    images = "images from the draft's URLs" if server.allow_network else "images off (the palette turns them on)"
    app.notify(f"{url}\nCopied (OSC 52). Over SSH: ssh -L {server.port}:localhost:{server.port} HOST, then open it "
               f"there. Live: every edit reaches the page; {images}.", title="Browser preview", timeout=30)
    return url


def _watch_disk(app: Any) -> None:
    """Ask the editor's draft watcher (the one rule for another editor's save: reload, or ask when there are
    unsaved edits) every :data:`DISK_INTERVAL` while the preview runs."""
    safety = getattr(app, "safety", None)
    if safety is not None and getattr(app, _WATCH, None) is None:
        setattr(app, _WATCH, app.set_interval(DISK_INTERVAL, safety.check_disk, name="browser-preview-disk-watch"))


def typing(app: Any, path: tuple[str | int, ...] | None, text: str = "") -> None:
    """A code field's text while it is typed (``path`` None once written or left): the running page shows it at
    once, so an edit of ``custom_css`` reaches the browser within the issue's 200 ms however the field is left
    (Escape in tmux waits for tmux's ``escape-time``, 500 ms by default). Nothing when no preview runs."""
    server = server_of(app)
    if server is not None and server.running:
        server.typing(path, text)


def stop_preview(app: Any) -> None:
    """Stop the session's server (the app's exit; tests)."""
    server = server_of(app)
    if server is not None:
        server.stop()
        atexit.unregister(server.stop)
        setattr(app, _ATTRIBUTE, None)
    timer = getattr(app, _WATCH, None)
    if timer is not None:
        timer.stop()
        setattr(app, _WATCH, None)


def palette_entries(app: Any, screen: Any) -> list[tuple[str, str, Any]]:
    """The palette's entries, on an App screen (the app whose widget it shows): open the preview, and turn the
    draft's images on or off."""
    from functools import partial

    index = getattr(screen, "app_index", None)
    if not isinstance(index, int):
        return []
    widget = getattr(screen, "widget_index", 0)
    server = server_of(app)
    network = server is not None and server.allow_network
    entries = [("Browser preview", "This app's widget, live in a browser: a loopback URL, copied (v)",
                partial(open_preview, app, index, widget))]
    if network:
        entries.append(("Browser preview: images off", "The page stops loading the launcher icons",
                        partial(open_preview, app, index, widget, allow_network=False)))
    else:
        entries.append(("Browser preview: images from the network", "The page loads the launcher icons from the "
                        "exact URLs the draft names, nothing else", partial(open_preview, app, index, widget,
                                                                             allow_network=True)))
    return entries
