"""Escape followed at once by a key is one Alt key, never the key itself (tenantdeck.tui.alt_keys).

Found by a docs-only trial: ``tmux send-keys Escape Enter`` (or Escape Space) on the Main tab flipped the focused
toggle, where docs/tutorial.md says that Escape followed at once by a key does nothing. The property runs the
terminal parser over generated keyboard input; the end-to-end test types the merged keys into the editor on a real
pseudo-terminal and checks the draft on disk.
"""

from __future__ import annotations

import fcntl
import os
import struct
import sys
import termios
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual import events
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

import tenantdeck
from tenantdeck.tui.alt_keys import AltKeyParser
from tests import procs
from tests.fuzzing import examples
from tests.tui.pty_terminal import Terminal
from tests.tui.widget_fixtures import draft_text

ESC = "\x1b"
#: Textual's own two-key readline meanings, kept: Alt+Backspace deletes a word, Alt+b/Alt+f move by one,
#: Escape+Tab is shift+tab
READLINE = {f"{ESC}\x7f": "ctrl+w", f"{ESC}b": "ctrl+left", f"{ESC}f": "ctrl+right", f"{ESC}\t": "shift+tab"}
#: keys a terminal sends as one escape sequence of their own
NAMED = ["\x1b[A", "\x1b[B", "\x1bOP", "\x1bOQ", "\x1b[15~", "\x1b[17~", "\x1b[3~", "\x1b[Z"]

_plain = st.characters(blacklist_characters=ESC, blacklist_categories=("Cs",))
#: Escape + a key; not "[" or "O", with which a terminal starts the sequences above (an Alt+[ is one of them)
_merged = st.characters(blacklist_characters=f"{ESC}[O", blacklist_categories=("Cs",)).map(lambda c: ESC + c)
_token = st.one_of(_plain, _merged, st.sampled_from(NAMED))


def parse(parser: XTermParser, text: str) -> list[events.Key]:
    got = (list(parser.feed(text)) if text else []) + list(parser.feed(""))  # "" is the end of the input
    assert all(isinstance(event, events.Key) for event in got), got
    return got  # type: ignore[return-value]


def alone(token: str) -> list[events.Key]:
    """What Textual's own parser makes of a token read by itself."""
    return parse(XTermParser(), token)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_token, max_size=12))
def test_escape_merged_with_a_key_is_one_alt_key_and_nothing_else_changes(tokens: list[str]) -> None:
    """However the keys come in one read, each Escape+key is one Alt key with no character (so no field types it
    and nothing bound to the key runs), and every other key is what Textual alone makes of it."""
    got = parse(AltKeyParser(), "".join(tokens))
    assert len(got) == len(tokens), (tokens, [e.key for e in got])
    for token, event in zip(tokens, got, strict=True):
        if token in READLINE:
            assert (event.key, event.is_printable) == (READLINE[token], False), (token, event)
        elif len(token) == 2 and token[0] == ESC:
            assert event.key.startswith("alt+") and event.character is None, (token, event)
        else:
            [expected] = alone(token)
            assert (event.key, event.character) == (expected.key, expected.character), (token, event)


@pytest.mark.parametrize(("typed", "keys"), [
    (f"{ESC}\r", ["alt+enter"]), (f"{ESC} ", ["alt+space"]), (f"{ESC}7", ["alt+7"]), (f"{ESC}p", ["alt+p"]),
    (f"{ESC}\r{ESC} ", ["alt+enter", "alt+space"]),  # Textual alone: "^", enter, space
    ("\x1b[17~\x1bp", ["f6", "alt+p"]), (f"{ESC}{ESC}", ["escape", "escape"]), (f"x{ESC}", ["x", "escape"]),
])
def test_the_trial_s_keys(typed: str, keys: list[str]) -> None:
    got = parse(AltKeyParser(), typed)
    assert [event.key for event in got] == keys
    assert not any(event.is_printable for event in got if event.key.startswith("alt+"))


#: what a paste may hold: anything, Escape sequences, control characters and the start of either marker included
_pasted = st.lists(st.one_of(st.characters(blacklist_categories=("Cs",)), st.sampled_from(
    [ESC, "\x1b[", "\x1b[2", "\x1b[200", "\x1b[200~", "\x1b[201", "\x07", "\x00", "\x1b[31m"])), max_size=12).map(
    "".join).filter(lambda text: "\x1b[201~" not in text)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.one_of(_token.map(lambda key: ("key", key)), _pasted.map(lambda text: ("paste", text))),
                max_size=8), st.lists(st.integers(min_value=1, max_value=12), max_size=40))
def test_a_bracketed_paste_is_one_paste_of_what_it_held_in_its_place(
        parts: list[tuple[str, str]], cuts: list[int]) -> None:
    """Keys and bracketed pastes, read in one piece or cut into reads anywhere (a paste longer than a read, a marker
    split between two): each paste is one ``Paste`` of exactly its text (NUL removed, as Textual does), among the keys
    where it was typed, and the keys are what they are without the pastes. Textual's parser typed what followed an
    Escape inside a paste as keys and pasted the rest last."""
    stream = "".join(f"\x1b[200~{text}\x1b[201~" if kind == "paste" else text for kind, text in parts)
    parser = AltKeyParser()
    got, at = [], 0
    for cut in cuts:
        got += list(parser.feed(stream[at:at + cut])) if stream[at:at + cut] else []
        at += cut
    got += (list(parser.feed(stream[at:])) if stream[at:] else []) + list(parser.feed(""))
    pastes = [text.replace("\x00", "") for kind, text in parts if kind == "paste"]
    assert [event.text for event in got if isinstance(event, events.Paste)] == pastes
    keys_alone = parse(AltKeyParser(), "".join(text for kind, text in parts if kind == "key"))
    assert [(e.key, e.character) for e in got if isinstance(e, events.Key)] == [(e.key, e.character)
                                                                              for e in keys_alone]
    order, at_key = [], 0
    for kind, text in parts:  # where each paste comes: after the keys typed before it
        if kind == "key":
            at_key += len(parse(AltKeyParser(), text))
        else:
            order.append(at_key)
    seen, keys = [], 0
    for event in got:
        if isinstance(event, events.Paste):
            seen.append(keys)
        else:
            keys += 1
    assert seen == order


def test_textual_builds_its_parser_from_the_name_the_driver_replaces() -> None:
    """HangupSafeDriver swaps ``linux_driver.XTermParser``: a Textual whose input loop builds its parser another
    way must fail here, not silently type Escape+Enter as Enter again."""
    assert "XTermParser" in LinuxDriver.run_input_thread.__code__.co_names


F2, CTRL_Q = b"\x1bOQ", b"\x11"


@pytest.mark.e2e
@pytest.mark.timeout(120)
def test_escape_then_a_key_in_one_read_changes_nothing_in_the_editor(tmp_path: Path) -> None:
    """The editor on a real terminal: Escape merged with Enter, Space, 7 or a letter, on a text field and on a
    toggle, saves nothing; the same Space typed alone flips the toggle (so the keys do reach it)."""
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(draft_text(), encoding="utf-8")
    before = draft.read_bytes()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TENANTDECK_", "TEXTUAL"))}
    env.update(PYTHONPATH=str(Path(tenantdeck.__file__).resolve().parents[1]), TERM="xterm-256color",
               TENANTDECK_CONFIG_DIR=str(tmp_path / "config"), TENANTDECK_DATA_DIR=str(tmp_path / "data"))
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    term = Terminal(master)
    try:
        command = [sys.executable, "-m", "tenantdeck", "edit", str(draft)]
        with procs.running(command, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=tmp_path,
                           start_new_session=True) as proc:
            os.close(slave)
            slave = -1
            term.wait_for(b"Acme")
            term.keys(b"\r")  # open the first app: its Style tab, a colour field focused
            term.wait_for(b"Primary")
            for merged in (b"\x1b7", b"\x1bp", b"\x1b\r"):
                term.keys(merged)
                term.pump(0.3)
            term.keys(b"3")  # the Main tab: the focus on its first toggle
            term.wait_for(b"Enable polls")
            for merged in (b"\x1b\r", b"\x1b ", b"\x1b\r\x1b "):
                term.keys(merged)
                term.pump(0.3)
            term.forget()
            term.keys(F2)
            assert term.wait_for(b"Nothing to save", b"Saved") == b"Nothing to save"
            assert draft.read_bytes() == before
            term.keys(b" ")
            term.pump(0.3)
            term.keys(F2)
            term.wait_for(b"Saved", timeout=30)  # the first F2's "Nothing to save" may still be drawn
            assert draft.read_bytes() != before, "Space alone flips the toggle: the keys reach it"
            term.keys(CTRL_Q)
            assert proc.wait(timeout=30) == 0
    finally:
        if slave >= 0:
            os.close(slave)
        term.hang_up()
