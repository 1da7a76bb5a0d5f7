"""Data inside Textual markup, drawn as itself: :func:`literal`.

The TUI never parses data as markup, but a few lines mix both (a banner with a bold word and a widget's name). For
those, ``textual.markup.escape`` is not enough: it escapes only what looks like a tag (``[b]``, ``[/]``, ``[@click]``),
while Textual's parser also opens a tag at ``[2J`` (the text of ``ESC [2J`` once :func:`~tenantdeck.textsafe.shown`
has escaped the ESC), so a webhook or widget named ``clear\\x1b[2Jscreen`` raised ``MarkupError`` and broke the tab
(issue 32). And a trailing backslash escapes the markup that follows it.
"""

from __future__ import annotations

from tenantdeck.textsafe import shown


def literal(text: str) -> str:
    """``text`` shown safe (:func:`shown`) with every ``[`` escaped, so markup around it reads it as plain text; a
    trailing backslash is written ``\\x5c`` (doubling it does not stop it escaping the ``[`` after it)."""
    text = shown(text).replace("[", "\\[")
    return text[:-1] + "\\x5c" if text.endswith("\\") else text


__all__ = ["literal"]
