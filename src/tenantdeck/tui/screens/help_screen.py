"""F1: help for what has focus (its ``HELP`` text, or its screen's) and every key that works there."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Markdown, Static

from tenantdeck.tui.widgets.footer import KeyFooter

if TYPE_CHECKING:
    from textual.app import App


@dataclasses.dataclass(frozen=True)
class HelpContent:
    """The help for one place: prose (Markdown) around the table of its keys (key as shown, what it does)."""

    before: str
    keys: tuple[tuple[str, str], ...]
    after: str

    @property
    def text(self) -> str:
        """The whole help as Markdown (what it says, whatever draws it)."""
        rows = ["| Key | Does |", "|---|---|", *(f"| `{key}` | {what} |" for key, what in self.keys)]
        return "\n\n".join([self.before, "\n".join(rows), self.after])


def help_content(focused: Widget | None, screen: Screen[object]) -> HelpContent:
    """The nearest ``HELP`` up from the focused widget (then the screen's), and every key that works there."""
    parts: list[str] = []
    node: object = focused
    while node is not None:
        text = getattr(node, "HELP", None)
        if isinstance(text, str) and text.strip() and text not in parts:
            parts.append(text)
        node = getattr(node, "parent", None)
    screen_help = getattr(screen, "HELP", None)
    if isinstance(screen_help, str) and screen_help not in parts:
        parts.append(screen_help)
    keys: list[tuple[str, str]] = []
    seen: set[str] = set()
    for key, active in screen.active_bindings.items():
        binding = active.binding
        what = binding.description or binding.action
        if not what or what in seen or key.split("+")[0] in UNDELIVERED_MODIFIERS:
            continue  # one key per action: the first one declared (f2, not ctrl+s, which a terminal may swallow)
        seen.add(what)
        keys.append((key_display(screen, binding, key), what))
    palette = ("`ctrl+p` opens the command palette: every command, and a jump to any app, webhook or field (a colour, "
               "a toggle, an SMS, extension or app setting, the team) by name or label (the footer leaves it out "
               "to fit 80 columns).")
    return HelpContent("\n\n".join([*parts, FIELDS, palette, "## Keys here"]), tuple(keys),
                       "\n\n".join(["Keys can be remapped in `keymap.yaml` in the config directory (see the README).",
                                    CLOSING]))


def help_text(focused: Widget | None, screen: Screen[object]) -> str:
    """Markdown: :func:`help_content` as one text."""
    return help_content(focused, screen).text


#: modifiers a terminal never delivers to a program (the desktop keeps them): a key using one is not listed
UNDELIVERED_MODIFIERS = frozenset({"super", "hyper", "meta"})

FIELDS = """\
## Fields

`Tab` and `shift+Tab` move from field to field (the focused row has a bar). Type to change a value: `Enter` writes
it and leaves the field (the focus stays on its row, where the tab digits and `Space` work again, and `Enter` goes
back in); `Escape` puts back the value the draft holds, and a second `Escape` leaves the app.
Leaving a field (`Tab`) never writes a value that is not valid; `Enter` writes what you typed as you typed it, and
`F8` then lists its problem (a push refuses it until it is fixed). `Space` flips a toggle; `ctrl+z` undoes the last
edit."""

CLOSING = "`Escape`, `F1` or `q` closes this help; the focus goes back where it was."


def key_display(screen: Screen[object], binding: Binding, key: str) -> str:
    """A key as the keyboard shows it (``[``, ``/``), not Textual's name for it (``left_square_bracket``,
    ``slash``): the app's own formatting, for the one key of the binding listed."""
    if binding.key_display:
        return binding.key_display
    return screen.app.get_key_display(dataclasses.replace(binding, key=key))


class HelpScreen(ModalScreen[None]):
    """Any of Escape, F1 or q closes it; focus returns where it was."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 100; height: 90%; border: thick $primary;
                                  background: $surface; padding: 0 1; }
    HelpScreen .keys { margin: 0 1 1 1; }
    """
    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close", id="help.close")]

    def __init__(self, content: HelpContent) -> None:
        super().__init__()
        self.content = content
        self.text = content.text

    @classmethod
    def for_place(cls, app: App[Any], focused: Widget | None, screen: Screen[object]) -> HelpScreen:
        """The help for what has focus, built once per text: the screen (its Markdown laid out, the cost of F1) is
        installed in the app and shown again on the next F1 there, instead of being parsed and composed anew."""
        content = help_content(focused, screen)
        name = "help:" + hashlib.blake2b(content.text.encode(), digest_size=8).hexdigest()
        if app.is_screen_installed(name):
            found = app.get_screen(name)
            if isinstance(found, HelpScreen):
                return found
        help_screen = cls(content)
        app.install_screen(help_screen, name)
        return help_screen

    def on_screen_suspend(self) -> None:
        """Let go of the screen it was shown over, which an installed help screen otherwise kept alive for the
        rest of the session (a closed App screen, all its tabs composed) in two places: its drawing of that screen
        as its background, kept until it is drawn again (a refresh drops it), and the context of its update timer's
        task, where Textual's compositor leaves the list of screens it drew over. The timer is stopped; Textual
        starts a new one, in a context of its own, when the help is shown again. Its styles are noted as it is put
        away (tui/textual_fixes.py): shown again, it is not styled anew unless the app's CSS, classes or focus
        changed meanwhile (issue 36)."""
        self.refresh()
        timer = self._Screen__update_timer  # type: ignore[attr-defined]  # Textual's own, created on first use
        if timer is not None:
            timer.stop()
            self._Screen__update_timer = None

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self.content.before)
            yield Static(keys_table(self.content.keys), classes="keys")
            yield Markdown(self.content.after)
        yield KeyFooter()


def keys_table(keys: tuple[tuple[str, str], ...]) -> Table:
    """The keys as one widget's drawing: as a Markdown table each cell was a widget of its own (some 340 of the
    help's ~400), and Textual styled every one of them each time the help was shown (issue 36: F1's first frame).
    ``Text``, not markup: a key's name can come from the user's keymap."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=True)
    table.add_column("Key", style="bold", no_wrap=True)
    table.add_column("Does", ratio=1)
    for key, what in keys:
        table.add_row(Text(key), Text(what))
    return table
