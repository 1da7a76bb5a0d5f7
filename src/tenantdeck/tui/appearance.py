"""Themes, the remembered theme and the user's keymap, applied to the app when it mounts.

The files and their validation are the core's (:mod:`tenantdeck.prefs`); here they become Textual themes and a
keymap, and every problem becomes one notice naming the file and what is wrong, while the editor falls back (the
default theme, the default keys) and starts anyway.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import pkgutil
import re
from typing import TYPE_CHECKING

from textual.theme import Theme

from tenantdeck.locations import cache_dir, config_dir
from tenantdeck.prefs import keymap as keymaps
from tenantdeck.prefs import settings as prefs_settings
from tenantdeck.prefs.themes import DEFAULT_THEME, ThemeFailure, ThemeSet, cache_path, load_themes

if TYPE_CHECKING:
    from textual.app import App


#: how much of the primary colour the focus bar mixes into the background, when a theme does not set the bar
FOCUS_BAR_MIX = 0.35


def variable_defaults(theme: Theme) -> dict[str, str]:
    """tenantdeck's theme variables, derived from ``theme`` for a theme that does not set them (Textual's own
    themes, a user's theme file): ``focus-row-background``, the bar behind the focused row of a form (a toggle, a
    field). A bar, not bold text: in tmux, over SSH or with 256 colours a change of weight cannot be found on the
    screen, and Textual's ``$boost`` is a few percent of the foreground, invisible on black."""
    from textual.color import Color, ColorParseError

    generated = theme.to_color_system().generate()
    try:
        background = Color.parse(generated["background"])
        bar = background.blend(Color.parse(generated["primary"]), FOCUS_BAR_MIX).hex
    except (KeyError, ColorParseError):  # an ANSI theme names terminal colours, which do not mix
        bar = "ansi_blue"
    return {"focus-row-background": bar}


#: the words a ``*-text-style`` variable may hold (Textual's text styles)
TEXT_STYLES = frozenset({"bold", "dim", "italic", "underline", "underline2", "reverse", "strike", "blink", "none",
                         "not", "b", "i", "u", "s", "r", "d"})
_REFERENCE = re.compile(r"\$([a-z][a-z0-9-]*)(?: +\d{1,3}%)?")
_ALPHA = re.compile(r"\d{1,3}%")


def variable_problem(name: str, value: str) -> str | None:
    """Why Textual cannot use ``value`` for the design variable ``name``, or None. A theme's variables are pasted
    into the stylesheet as they are: a bad one (``not a colour at all;``) passed every check and closed the editor
    with "Error in stylesheet" once the theme was chosen (trial J, J15). ``*-text-style`` takes text styles; every
    other variable a colour, optionally with an alpha (``#ff0000 50%``); Textual does not resolve ``$primary`` there."""
    if name.endswith("-text-style"):
        if value.split() and set(value.split()) <= TEXT_STYLES:
            return None
        return f"variables: {name}: {value!r} is not a text style (bold, italic, underline, reverse, dim, strike, none)"
    if _REFERENCE.fullmatch(value) is not None:  # Textual does not resolve a variable inside another's value
        return f"variables: {name}: {value!r}: a variable cannot name another; write the colour (#rrggbb)"
    from textual.color import Color, ColorParseError

    colour, _, alpha = value.partition(" ")
    try:
        Color.parse(colour)
    except ColorParseError:
        return f"variables: {name}: {value!r} is not a colour (#rrggbb or a colour name)"
    if alpha and not _ALPHA.fullmatch(alpha.strip()):
        return f"variables: {name}: {value!r}: after the colour only an alpha such as 50% may follow"
    return None


def usable_themes(loaded: ThemeSet) -> dict[str, Theme]:
    """The Textual themes of ``loaded``'s specs; a spec Textual cannot build (a colour it refuses) or whose
    variable fails :func:`variable_problem` is moved from ``loaded.themes`` to ``loaded.failures``. The one rule
    of what the editor leaves out: :func:`register_themes` registers what it returns, and ``tenantdeck doctor``
    warns of the rest (a trial found doctor ``ok`` for a theme file the editor then left out)."""
    usable: dict[str, Theme] = {}
    for name, spec in list(loaded.themes.items()):
        try:
            theme = Theme(**spec.kwargs)  # type: ignore[arg-type]
            theme.to_color_system()  # parses every colour now rather than when it is chosen
            problem = next((why for key, value in theme.variables.items()
                            if (why := variable_problem(key, value)) is not None), None)
        except Exception as exc:  # a colour Textual refuses
            problem = str(exc)
        if problem is not None:
            loaded.failures.append(ThemeFailure(spec.source, f"Textual cannot use it: {problem}"))
            del loaded.themes[name]
            continue
        usable[name] = theme
    return usable


def theme_names(loaded: ThemeSet) -> set[str]:
    """The themes the editor can switch to once :func:`register_themes` registered ``loaded``'s: those and Textual's
    own (``App.available_themes`` is the two). The remembered theme is checked against these by the editor
    (:func:`apply_theme`) and ``tenantdeck doctor``, which warned of a remembered ``nord`` the editor used."""
    from textual.theme import BUILTIN_THEMES

    return set(BUILTIN_THEMES) | set(loaded.themes)


def register_themes(app: App[object]) -> ThemeSet:
    """Register every valid theme file with ``app`` (:func:`usable_themes`); the others are its failures."""
    loaded = load_themes(config_dir(), cache_path(cache_dir()))
    for theme in usable_themes(loaded).values():
        app.register_theme(theme)
    return loaded


def apply_theme(app: App[object], loaded: ThemeSet) -> list[tuple[str, str]]:
    """Switch to the remembered theme (or the default), and remember later choices; returns what was wrong (the
    theme files left out, the settings' bad values), as (title, text) notices."""
    config = config_dir()
    remembered = prefs_settings.load(config)
    said = list(remembered.problems)  # each names settings.yaml, the key and why
    wanted = remembered.theme or DEFAULT_THEME
    if wanted not in theme_names(loaded):
        failure = loaded.failure_for(wanted)
        why = failure.render() if failure else f"no theme named {wanted!r} (themes are in {config / 'themes'})"
        where = f"{prefs_settings.settings_path(config)}: theme: " if remembered.theme else ""
        said.append(f"{where}Theme {wanted!r} cannot be used: {why}. Using {DEFAULT_THEME}.")
        wanted = DEFAULT_THEME if DEFAULT_THEME in app.available_themes else "textual-dark"
    app.theme = wanted
    notices = []
    others = [f.render() for f in loaded.failures if f is not loaded.failure_for(remembered.theme or DEFAULT_THEME)]
    if others:
        notices.append(("Theme", "Theme files left out:\n" + "\n".join(others)))
    if said:
        notices.append(("Settings", "\n".join(said)))

    def remember(theme: Theme) -> None:
        current = prefs_settings.load(config)
        if current.theme == theme.name or current.problem:
            return
        current.theme = theme.name
        try:
            prefs_settings.save(config, current)
        except OSError as exc:
            app.notify(f"The theme choice cannot be remembered: {exc}", severity="warning")

    app.theme_changed_signal.subscribe(app, remember)
    return notices


def keymap_problems(loaded: keymaps.Keymap, app: type[App[object]]) -> list[str]:
    """:func:`tenantdeck.prefs.keymap.settle` against the bindings of the app class ``app`` and of every class of
    ``tenantdeck.tui``: what the editor leaves out of ``loaded.bindings`` and says at start, and what ``tenantdeck
    doctor`` warns of. The classes are read only when there is an entry to check (importing every screen for them
    costs more than a bare Textual app takes to start)."""
    if not loaded.bindings:
        return list(loaded.problems)
    return keymaps.settle(loaded, binding_scopes(app), known_binding_ids(app), textual_knows)


@functools.cache
def _key_names() -> frozenset[str]:
    """The key names (modifiers aside) Textual reports that no character's Unicode name gives: its ``Keys`` (f1,
    pageup, tab), its short names of characters (slash, minus) and its aliases (newline)."""
    from textual.keys import KEY_ALIASES, KEY_NAME_REPLACEMENTS, Keys

    names = {key.value for key in Keys} | set(KEY_NAME_REPLACEMENTS.values())
    names |= {alias for aliases in KEY_ALIASES.values() for alias in aliases}
    return frozenset(name.rpartition("+")[2] for name in names)


def textual_knows(key: str) -> bool:
    """Whether ``key`` (``ctrl+r``, ``question_mark``: the keymap file's syntax, lower case) names a key Textual can
    report: its base is one character, one of :func:`_key_names`, or a character's Unicode name (comma)."""
    from textual.keys import key_to_character

    base = key.rpartition("+")[2]
    return len(base) == 1 or base in _key_names() or key_to_character(base) is not None


def apply_keymap(app: App[object]) -> list[tuple[str, str]]:
    """``keymap.yaml``: good entries applied; returns its problems (and ids no binding has) as one notice naming
    the file."""
    loaded = keymaps.load(config_dir())
    problems = keymap_problems(loaded, type(app))
    if loaded.bindings:
        app.set_keymap(loaded.bindings)
    return [("Keymap", f"{loaded.path}:\n" + "\n".join(problems))] if problems else []


def _notify(app: App[object], title: str, text: str) -> None:
    """A start-up notice of a config file, its directory written from ``~`` (at 80 columns a toast is 40 wide:
    a temp home's full path took three lines per file, and the oldest of the notices went off the top of the
    screen, unread)."""
    from pathlib import Path

    config = config_dir()
    with contextlib.suppress(ValueError, RuntimeError):  # not under the home directory: written in full
        text = text.replace(str(config), "~/" + str(config.relative_to(Path.home())))
    app.notify(text, title=title, severity="warning", timeout=15)


def _bound_classes() -> list[type]:
    """Every class of ``tenantdeck.tui`` and its subpackages that declares bindings (imported for that)."""
    import tenantdeck.tui as package

    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        try:
            module = importlib.import_module(info.name)
        except Exception:  # a tab that does not import is the tab's problem, not the keymap's
            continue
        for obj in vars(module).values():
            if isinstance(obj, type) and obj.__module__ == module.__name__ and getattr(obj, "BINDINGS", None):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(found.values())


def known_binding_ids(app: type[App[object]]) -> set[str]:
    """Every binding id of the app class ``app`` and of the classes in ``tenantdeck.tui``."""
    ids = {b.id for b in app.BINDINGS if getattr(b, "id", None)}  # type: ignore[union-attr]
    for cls in _bound_classes():
        for binding in cls.BINDINGS:  # type: ignore[attr-defined]
            if getattr(binding, "id", None):
                ids.add(binding.id)
    return {i for i in ids if i}


def binding_scopes(app: type[App[object]]) -> list[list[keymaps.Bound]]:
    """The bindings that work together, for :func:`tenantdeck.prefs.keymap.refuse_clashes`: the app's, and each
    screen's or widget's (with what it inherits) together with the app's, which work on every screen. A binding
    without an id (Textual's own: Tab moves the focus) is there under its action: no entry can move it, but an entry
    can take its key."""
    def bound(node: type) -> list[keymaps.Bound]:
        return [keymaps.Bound(b.id or f"({b.action})", (key,), b.description, b.priority, node.__qualname__)
                for key, bindings in node._merge_bindings().key_to_bindings.items()  # type: ignore[attr-defined]
                for b in bindings]

    everywhere = _merged(bound(app))
    return [everywhere, *(_merged(bound(cls) + everywhere) for cls in _bound_classes())]


def _merged(bounds: list[keymaps.Bound]) -> list[keymaps.Bound]:
    """One :class:`Bound` per binding id, with all its keys (Textual lists a binding once per key)."""
    keys: dict[str, list[str]] = {}
    first: dict[str, keymaps.Bound] = {}
    for b in bounds:
        first.setdefault(b.id, b)
        keys.setdefault(b.id, [])
        keys[b.id] += [k for k in b.keys if k not in keys[b.id]]
    return [keymaps.Bound(i, tuple(keys[i]), first[i].description, first[i].priority, first[i].owner)
            for i in first]


def setup(app: App[object]) -> list[str]:
    """Themes (registered, the remembered one applied) and the keymap; returns the names of the theme files'
    themes, which the command palette offers."""
    loaded = register_themes(app)
    notices = dict(apply_theme(app, loaded))
    notices.update(apply_keymap(app))
    # The newest toast is the bottom one; when they are more than the screen holds, the oldest go off the top,
    # unread (a docs-only trial missed the settings notice under a keymap and a theme notice). So the theme files
    # come first (one left out matters only once chosen, and the settings notice then says why), the settings
    # and the keymap (a key that may be missing) last.
    for title in ("Theme", "Settings", "Keymap"):
        if title in notices:
            _notify(app, title, notices[title])
    return sorted(loaded.themes)
