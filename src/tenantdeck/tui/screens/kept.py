"""Screens kept for the session: one instance installed under a name and shown again instead of composed anew.

Composing and styling a screen is most of its first frame (issue 36, bench/tui_navigation.py): the App screen and
the Presets screen are each kept once made, and the next time one is asked for, the kept one is brought up to date
(re-bound to another app, filled from the draft as it is now) and pushed again. One rule for when it can be: it is
still attached to the app and on no screen stack (a kept screen already shown cannot be pushed a second time); else
a new screen is made, and kept if none is yet.
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.app import App
from textual.screen import Screen

S = TypeVar("S", bound=Screen[Any])


def free(app: App[Any], name: str, kind: type[S]) -> S | None:
    """The screen of ``kind`` kept under ``name``, when it can be shown again: attached and on no screen stack
    (Textual keeps a stack per mode: a private attribute, the only place that says it)."""
    kept = app.get_screen(name) if app.is_screen_installed(name) else None
    if isinstance(kept, kind) and kept.is_attached and not any(
            kept in stack for stack in app._screen_stacks.values()):
        return kept
    return None


def keep_first(app: App[Any], name: str, screen: S) -> S:
    """``screen``, kept under ``name`` if no screen is kept there yet."""
    if not app.is_screen_installed(name):
        app.install_screen(screen, name)
    return screen
