"""How an error becomes a notification: every screen that talks to the service words its failures the same way."""

from __future__ import annotations


def problem_text(exc: BaseException) -> str:
    """One line for a notification: the typed error's message and hint, never a traceback."""
    hint = getattr(exc, "hint", "")
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{text}" + (f" ({hint})" if hint and hint not in text else "")
