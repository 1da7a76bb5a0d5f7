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

A bracketed paste is taken whole before Textual's parser sees it (:meth:`AltKeyParser.feed`): Textual's parser
reads an Escape inside a paste as the start of a key sequence, types the characters after it as keys at once and
hands the paste over last, without them. Pasting ``P`` ESC ``[31mQ`` into a field holding ``Alerts`` gave
``Alerts31mQP`` (a docs-only trial). Here everything between the paste's start and end markers is one ``Paste``,
in its place among the keys, whatever it holds and however the terminal's reads split it.

Used by :class:`tenantdeck.tui.terminal_driver.HangupSafeDriver`, the editor's driver on Linux and macOS;
tests/tui/test_alt_keys.py holds it over every key and, through a real pseudo-terminal, on the editor itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import constants, events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.message import Message

ESC = "\x1b"
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"


def _ends_with_start_of(data: str, marker: str, least: int = 1) -> int:
    """The length of the longest end of ``data`` that is a start of ``marker`` (not all of it), at least ``least``
    characters long; 0 when there is none."""
    return next((n for n in range(len(marker) - 1, least - 1, -1) if data.endswith(marker[:n])), 0)


def _alt(event: events.Key) -> events.Key:
    """``event`` as an Alt key with no character (so no text field types it)."""
    key = event.key if event.key.startswith("alt+") else f"alt+{event.key}"
    return events.Key(key, None)


class AltKeyParser(XTermParser):
    """Textual's terminal parser, except that Escape merged with the key after it is always an Alt key."""

    def __init__(self, debug: bool = False) -> None:
        super().__init__(debug)
        self._escape_reissued = False
        self._pasted: list[str] | None = None  # inside a bracketed paste: what it held so far
        self._paste_tail = ""  # the end of the last read, when it may be the start of the paste's end marker
        self._held = ""  # the end of the last read, when it may be the start of a paste's start marker
        self._held_since = 0.0

    def feed(self, data: str) -> Iterable[Message]:
        """Textual's parsing, except that a bracketed paste is one ``Paste`` of exactly what it held (see the
        module's docstring). A read that ends with the start of a marker (``ESC``, ``ESC [2``) holds it back for
        the next read, which the terminal sends at once; a real key that stops there (Escape) is handed on by
        :meth:`tick` as soon as Textual would have."""
        if not data:  # the end of the input: what was held back, what a paste left unfinished, then Textual's end
            held, self._held = self._held, ""
            yield from super().feed(held) if held else ()
            if self._pasted is not None:
                yield self._paste("".join(self._pasted) + self._paste_tail)
            yield from super().feed(data)
            return
        data, self._held = self._held + data, ""
        while data:
            if self._pasted is None:
                start = data.find(PASTE_START)
                if start < 0:
                    keep = _ends_with_start_of(data, PASTE_START)
                    if keep:
                        self._held, self._held_since, data = data[-keep:], get_time(), data[:-keep]
                    yield from super().feed(data) if data else ()
                    return
                if start:
                    yield from super().feed(data[:start])
                if self._timeout_time is not None:  # Textual waits for more of a sequence: the paste ended it
                    self._timeout_time = get_time()
                    yield from super().tick()
                self._pasted, data = [], data[start + len(PASTE_START):]
                continue
            buffered = self._paste_tail + data
            end = buffered.find(PASTE_END)
            if end < 0:  # the paste goes on in the next read; keep what may be the start of its end marker
                keep = _ends_with_start_of(buffered, PASTE_END)
                self._pasted.append(buffered[:len(buffered) - keep])
                self._paste_tail = buffered[len(buffered) - keep:]
                return
            yield self._paste("".join(self._pasted) + buffered[:end])
            data = buffered[end + len(PASTE_END):]

    def tick(self) -> Iterable[Message]:
        """Textual's timeouts, and what :meth:`feed` held back once no read has come to finish it (the wait a lone
        Escape gets)."""
        if self._held and get_time() - self._held_since >= constants.ESCAPE_DELAY:
            held, self._held = self._held, ""
            yield from super().feed(held)
            self._timeout_time = get_time()  # it has waited already: Textual's wait for more ends now
        yield from super().tick()

    def _paste(self, text: str) -> events.Paste:
        self._pasted, self._paste_tail = None, ""
        return events.Paste(text.replace("\x00", ""))  # NUL removed, as Textual does (its issue 1661)

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
