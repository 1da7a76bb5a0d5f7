"""How an error becomes a notification: every screen that talks to the service words its failures the same way."""

from __future__ import annotations


def problem_text(exc: BaseException, *, hint: bool = True) -> str:
    """One line for a notification: the typed error's message and hint, never a traceback. The editor has no
    command-line flags: a hint naming one says the profile setting instead (api/errors.py FLAG_SETTINGS).
    ``hint=False``: the reason alone, for a status line."""
    from tenantdeck.api.errors import ApiError

    if isinstance(exc, ApiError):
        return exc.text(hint=hint, flags=False)
    hint_text = getattr(exc, "hint", "") if hint else ""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{text}" + (f" ({hint_text})" if hint_text and hint_text not in text else "")
