"""Escape followed at once by a key is one Alt key, whatever the key: it never types, flips or presses anything.

A terminal sends Alt+x as Escape then x, so a program that reads both in one read (``tmux send-keys Escape Enter``,
the two keys within tmux's ``escape-time``, a slow SSH link) cannot tell them apart. Textual 8.2.8's parser
(``XTermParser``) reads them as Alt+x for a letter (``alt+p``), but for a key it names it drops the Alt: Escape+Enter
became a plain ``enter`` and Escape+Space a plain ``space``, so on the Main tab they flipped the focused toggle
(found by a docs-only trial); and Escape+7 became ``¶`` (macOS's Option+7), typed into a text field. An
``alt+p`` also kept its character, so a text field typed the ``p``.

:class:`AltKeyParser` keeps the Alt on every such key and gives it no character: nothing in the editor is bound to
an Alt key, so neither the Escape nor the key happens, which is what docs/tutorial.md promises. Textual's own
two-key readline meanings are kept as they are (Escape+Backspace deletes a word in a text field, Escape+b and
Escape+f move by a word, Escape+Tab is shift+tab), as are Escape+Escape (Escape) and every longer sequence (F-keys,
arrows, mouse, paste).

Used by :class:`tenantdeck.tui.terminal_driver.HangupSafeDriver`, the editor's driver on Linux and macOS;
tests/tui/test_alt_keys.py holds it over every key and, through a real pseudo-terminal, on the editor itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser

ESC = "\x1b"


def _alt(event: events.Key) -> events.Key:
    """``event`` as an Alt key with no character (so no text field types it)."""
    key = event.key if event.key.startswith("alt+") else f"alt+{event.key}"
    return events.Key(key, None)


class AltKeyParser(XTermParser):
    """Textual's terminal parser, except that Escape merged with the key after it is always an Alt key."""

    def __init__(self, debug: bool = False) -> None:
        super().__init__(debug)
        self._escape_reissued = False

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if alt:  # Textual reissues Escape + one key no sequence names, after its wait for more (``ESCAPE_DELAY``)
            return [_alt(event) for event in super()._sequence_to_key_events(sequence, alt=True)]
        if sequence == ESC:
            # Textual reissues an unfinished sequence one character at a time when another Escape interrupts it
            # (Escape Enter Escape Space in one read): its Escape would be typed as "^" and the key after it
            # pressed; here the two are one Alt key, as when nothing follows
            self._escape_reissued = True
            return []
        if self._escape_reissued:
            self._escape_reissued = False
            return [_alt(event) for event in super()._sequence_to_key_events(sequence, alt=True)]
        if len(sequence) == 2 and sequence[0] == ESC and isinstance(ANSI_SEQUENCES_KEYS.get(sequence), str):
            # macOS Option characters (Escape+7 is "¶"): read as Alt + the key that was pressed
            return [_alt(event) for event in super()._sequence_to_key_events(sequence[1], alt=True)]
        return super()._sequence_to_key_events(sequence, alt=alt)
