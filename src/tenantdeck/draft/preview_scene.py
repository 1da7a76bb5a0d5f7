"""What the widget preview draws, decided from a widget's effective settings: its colours, the docked launcher
icon, the sidebar sections in order, the composer's buttons, the call buttons and the marks on sample messages.

The TUI's preview (:mod:`tenantdeck.tui.tabs.widget_preview`) only paints a :class:`Scene`; which toggle puts which
button in the picture is decided here, as data, so that it is tested without a terminal and the picture cannot
show a button whose toggle is off. Invalid values never raise: a colour that is not ``#RGB``/``#RRGGBB`` gets no
RGB and carries the model's own message, an unknown listing or section is left out with a note.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final
from urllib.parse import urlsplit

from tenantdeck.draft.effective_widget import EffectiveWidget, Source
from tenantdeck.models import catalog


@dataclass(frozen=True, slots=True)
class Feature:
    """One element of the picture, drawn when any of ``toggles`` is on (``short`` in a compact layout)."""

    id: str
    short: str
    label: str
    toggles: tuple[str, ...]


#: the composer's buttons, left to right
COMPOSER_BUTTONS: Final = (
    Feature("emoji", ":)", ":) Emoji", ("send_emojis",)),
    Feature("gif", "GIF", "GIF", ("send_gifs",)),
    Feature("sticker", "Stk", "Sticker", ("show_stickers",)),
    Feature("attach", "+", "+ Attach", ("send_files", "send_photos_videos", "share_location")),
    Feature("poll", "Poll", "Poll", ("allow_creating_polls",)),
    Feature("voice_note", "Mic", "Voice note", ("send_voice_notes",)),
)
#: the buttons in the conversation's header
CALL_BUTTONS: Final = (
    Feature("voice_call", "Call", "Voice call", ("enable_voice_calling",)),
    Feature("video_call", "Video", "Video call", ("enable_video_calling",)),
)
#: marks on the sample conversation
MESSAGE_MARKS: Final = (
    Feature("presence", "●", "● online", ("show_user_presence",)),
    Feature("reactions", "♥ 2", "♥ 2", ("allow_message_reactions",)),
    Feature("threads", "↳ 2", "↳ 2 replies", ("enable_threaded_replies",)),
    Feature("translate", "Translate", "Translate", ("enable_message_translation",)),
    Feature("reply", "↩", "↩ Reply", ("enable_replying_to_messages",)),
    Feature("edited", "edited", "(edited)", ("enable_editing_messages",)),
    Feature("receipts", "✓✓", "✓✓", ("show_delivery_read_indicators",)),
    Feature("typing", "typing…", "is typing…", ("show_typing_indicators",)),
    Feature("large_emoji", ":D", ":D", ("show_emojis_in_larger_size",)),
)
#: toggles the picture shows by other means than a feature: a deleted message's bubble, the composer itself
SHOWN_OTHERWISE: Final = ("hide_deleted_messages", "enable_sending_messages")

#: section of ``sidebar_navigation_sequence`` -> the sidebar flag that hides it when false
SECTION_FLAGS: Final = {"chats": "chats", "users": "users", "groups": "groups", "calls": "calls",
                        "settings": "user_settings"}
#: section -> the listing field captioned under it
SECTION_LISTINGS: Final = {"chats": "recent_chat_listing", "users": "user_listing", "groups": "group_listing"}

#: (role, style key) of the colours the picture paints with
COLOUR_ROLES: Final = (
    ("primary", "primary_color"),
    ("foreground", "foreground_color"),
    ("background", "background_color"),
    ("icon", "docked_layout_icon_background"),
)


@dataclass(frozen=True, slots=True)
class Swatch:
    """One colour of the widget: ``rgb`` is None when ``value`` is not a colour (``problem`` says why)."""

    role: str
    key: str
    label: str
    value: Any
    rgb: tuple[int, int, int] | None
    problem: str | None
    source: Source


@dataclass(frozen=True, slots=True)
class Section:
    """A sidebar section as drawn: its id, label and the caption of its listing mode (if it has one)."""

    id: str
    label: str
    caption: str | None = None
    caption_ok: bool = True


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything the preview paints; built by :func:`build_scene`."""

    name: str
    extends: str | None
    preset_found: bool
    colours: dict[str, Swatch]
    override_background: bool
    icon_open: str
    icon_close: str
    sections: tuple[Section, ...]
    hidden_sections: tuple[str, ...]
    new_chat: str | None
    call_buttons: tuple[Feature, ...]
    composer_buttons: tuple[Feature, ...]
    can_send: bool
    marks: frozenset[str]
    show_deleted: bool
    also_on: tuple[str, ...]
    inherited: int
    notes: tuple[str, ...] = field(default=())

    def has(self, mark: str) -> bool:
        return mark in self.marks


def build_scene(widget: EffectiveWidget) -> Scene:
    """The picture of ``widget``'s effective settings. Never raises; what cannot be drawn is in ``notes``."""
    notes = list(widget.notes)
    main = widget.main

    def on(key: str) -> bool:
        value = main.get(key)
        if value is not None and not isinstance(value, bool):
            notes.append(f"main.{key} is {value!r}, not true or false: drawn as off")
        return value is True

    def shown(features: tuple[Feature, ...]) -> tuple[Feature, ...]:
        return tuple(f for f in features if any(on(k) for k in f.toggles))

    drawn = {k for group in (COMPOSER_BUTTONS, CALL_BUTTONS, MESSAGE_MARKS) for f in group for k in f.toggles}
    drawn.update(SHOWN_OTHERWISE)
    also_on = tuple(t.label for t in catalog.MAIN_TOGGLES if t.key not in drawn and main.get(t.key) is True)

    colours = {role: _swatch(widget, role, key, notes) for role, key in COLOUR_ROLES}
    sections, hidden = _sections(widget.sidebar, notes)
    new_chat = widget.sidebar.get("start_a_new_conversation")
    new_chat_caption, ok = listing_caption("start_a_new_conversation", new_chat)
    if not ok:
        notes.append(f"sidebar.start_a_new_conversation {new_chat!r} is not one of "
                     f"{', '.join(catalog.LISTING_VALUES['start_a_new_conversation'])}")
    override = widget.style.get("override_system_background_colors")
    inherited = sum(1 for s in widget.source.values() if s == "preset")
    name = widget.name if isinstance(widget.name, str) and widget.name.strip() else "(unnamed widget)"
    return Scene(
        name=name,
        extends=widget.extends,
        preset_found=widget.preset_found,
        colours=colours,
        override_background=override is not False,
        icon_open=icon_file_name(widget.style.get("docked_layout_icon_open"), "docked_layout_icon_open", notes),
        icon_close=icon_file_name(widget.style.get("docked_layout_icon_close"), "docked_layout_icon_close", notes),
        sections=sections,
        hidden_sections=hidden,
        new_chat=new_chat_caption,
        call_buttons=shown(CALL_BUTTONS),
        composer_buttons=shown(COMPOSER_BUTTONS),
        can_send=main.get("enable_sending_messages") is not False,
        marks=frozenset(f.id for f in shown(MESSAGE_MARKS)),
        show_deleted=main.get("hide_deleted_messages") is False,
        also_on=also_on,
        inherited=inherited,
        notes=tuple(dict.fromkeys(notes)),
    )


def listing_caption(field_name: str, value: Any) -> tuple[str | None, bool]:
    """A listing mode as a short caption (``public_and_password_protected_groups`` -> ``public & password-
    protected groups``), and whether it is one of the allowed values."""
    if value is None:
        return None, True
    allowed = catalog.LISTING_VALUES.get(field_name, ())
    if not isinstance(value, str):
        return f"? {value!r}", False
    text = value.replace("_and_", " & ").replace("password_protected", "password-protected").replace("_", " ")
    return text, value in allowed


def icon_file_name(url: Any, key: str, notes: list[str]) -> str:
    """The file name at the end of an icon URL (what an admin recognises), or a marker for a missing one."""
    if not isinstance(url, str) or not url.strip():
        notes.append(f"style.{key} has no image URL")
        return "(no image)"
    path = urlsplit(url.strip()).path if "://" in url else url.strip()
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return name or url.strip()


def parse_colour(value: Any) -> tuple[tuple[int, int, int] | None, str | None]:
    """``(r, g, b)`` of a ``#RGB``/``#RRGGBB`` colour, or ``(None, the model's message)``."""
    if not isinstance(value, str):
        return None, f"is {value!r}, not a colour written #RGB or #RRGGBB"
    return _parse_colour(value)


@lru_cache(maxsize=256)
def _parse_colour(value: str) -> tuple[tuple[int, int, int] | None, str | None]:
    from pydantic import TypeAdapter, ValidationError

    from tenantdeck.models.base import Colour

    try:
        TypeAdapter(Colour).validate_python(value, strict=True)
    except ValidationError as exc:
        return None, str(exc.errors(include_url=False)[0]["msg"])
    digits = value[1:]
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)), None


def _swatch(widget: EffectiveWidget, role: str, key: str, notes: list[str]) -> Swatch:
    value = widget.style.get(key)
    label = catalog.STYLE_LABELS.get(key, key)
    rgb, problem = parse_colour(value)
    if problem:
        notes.append(f"{label}: {problem}")
    return Swatch(role, key, label, value, rgb, problem, widget.source_of("style", key))


def _sections(sidebar: Mapping[str, Any], notes: list[str]) -> tuple[tuple[Section, ...], tuple[str, ...]]:
    sequence = sidebar.get("sidebar_navigation_sequence")
    if not isinstance(sequence, list):
        notes.append(f"sidebar_navigation_sequence is {sequence!r}, not a list: drawn in the default order")
        sequence = list(catalog.NAVIGATION_SECTIONS)
    sections: list[Section] = []
    hidden: list[str] = []
    seen: set[str] = set()
    for entry in sequence:
        if not isinstance(entry, str) or entry not in SECTION_FLAGS:
            notes.append(f"sidebar_navigation_sequence: {entry!r} is not a section "
                         f"({', '.join(catalog.NAVIGATION_SECTIONS)}): left out")
            continue
        if entry in seen:
            notes.append(f"sidebar_navigation_sequence repeats {entry!r}: drawn once")
            continue
        seen.add(entry)
        if sidebar.get(SECTION_FLAGS[entry]) is False:
            hidden.append(entry)
            continue
        listing = SECTION_LISTINGS.get(entry)
        caption, ok = listing_caption(listing, sidebar.get(listing)) if listing else (None, True)
        if not ok:
            notes.append(f"sidebar.{listing} {sidebar.get(listing)!r} is not one of "
                         f"{', '.join(catalog.LISTING_VALUES[listing])}")
        sections.append(Section(entry, entry.capitalize(), caption, ok))
    return tuple(sections), tuple(hidden)
