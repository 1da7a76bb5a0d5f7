"""YAML that tenantdeck writes never holds a raw control or bidi character: every one is a double-quoted escape.

A pulled draft, a merged save and the targets file hold the service's strings (names, URLs, settings), and a
reviewer reads them in ``git diff``, an editor or a pull request page, all of which act on a raw U+202E (the text
after it reads reversed) or a raw ESC. YAML's own rule for double quotes treats C0, C1 and DEL as unprintable, so
they were escaped already, but the bidi controls (U+061C, U+200E/F, U+202A-E, U+2066-9) are "printable" there and
were written raw (issue 32). The set of characters is :func:`tenantdeck.textsafe.unsafe`'s: one rule for the
terminal and for the files.

:func:`escaping` makes a ruamel ``YAML`` obey it (the round-trip saves of :mod:`tenantdeck.draft.save` and the
targets file); :mod:`tenantdeck.draft.emit` (the fast writer of fresh drafts) applies the same rule itself; the
editor's save, which keeps every line it did not edit, rewrites a value written raw in place
(:mod:`tenantdeck.draft.raw_scalars`); the recovery file (PyYAML/libyaml) turns off raw non-ASCII when a text needs
it (:mod:`tenantdeck.draft.recovery`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ruamel.yaml.emitter import RoundTripEmitter

from tenantdeck.draft.emit import escape
from tenantdeck.textsafe import unsafe

if TYPE_CHECKING:
    from ruamel.yaml import YAML


class _EscapingStream:
    """The emitter's stream while it writes one double-quoted scalar: raw unsafe characters become escapes."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, data: str) -> Any:
        if unsafe(data, newlines=True):  # a line break here is ruamel's own (folding a long line)
            data = "".join(escape(c) if unsafe(c, newlines=True) else c for c in data)
        return self.stream.write(data)


class EscapingEmitter(RoundTripEmitter):
    """ruamel's round-trip emitter, except that a scalar holding an unsafe character is always double-quoted (a
    plain, single-quoted or ``|`` scalar cannot escape anything) and the character is written as an escape.

    ruamel escapes inside double quotes only what YAML calls unprintable; with ``allow_unicode`` (which keeps
    "Zoë" readable) it writes the bidi controls raw, so the stream is wrapped for that one scalar."""

    def choose_scalar_style(self) -> Any:
        value = self.event.value
        if isinstance(value, str) and unsafe(value, newlines=True):
            return '"'
        return super().choose_scalar_style()

    def write_double_quoted(self, text: Any, split: Any = True) -> None:
        if not (isinstance(text, str) and unsafe(text, newlines=True)) or self.encoding:
            super().write_double_quoted(text, split)
            return
        stream = self.stream
        self.stream = _EscapingStream(stream)
        try:
            super().write_double_quoted(text, split)
        finally:
            self.stream = stream


def escaping(yaml: YAML) -> YAML:
    """``yaml`` (a round-trip ruamel ``YAML``) writing every unsafe character as an escape; returns it."""
    yaml.Emitter = EscapingEmitter
    return yaml


__all__ = ["EscapingEmitter", "escaping"]
