"""Chat widget v2 settings: ``style``, ``sidebar`` and ``main`` exactly as the spec's tables say.

``WidgetSettings`` is the API body's ``settings`` object (also a preset). ``WidgetDraft`` is a widget as written in a
draft: either complete, or ``extends`` a preset and carries only its overrides (the ``*Patch`` models: every field
optional, same types and checks). Resolution of a widget against its preset lives in :mod:`tenantdeck.rules`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, create_model
from pydantic_core import PydanticCustomError

from tenantdeck.models import catalog
from tenantdeck.models.base import Colour, Held, NonEmptyStr, StrictModel, WidgetName

#: The sidebar's listing strings. The spec gives no enum; the documented values (``catalog.LISTING_VALUES``, from
#: the clients that read them) bind what a draft sends, but the service may hold others, which are kept: a
#: :class:`~tenantdeck.models.base.Held` rule (rules.py warns, the plan refuses to set one, docs/real-service.md).
RecentChatListing = Annotated[str, Held(choices=catalog.LISTING_VALUES["recent_chat_listing"])]
UserListing = Annotated[str, Held(choices=catalog.LISTING_VALUES["user_listing"])]
GroupListing = Annotated[str, Held(choices=catalog.LISTING_VALUES["group_listing"])]
StartConversation = Annotated[str, Held(choices=catalog.LISTING_VALUES["start_a_new_conversation"])]
NavigationSection = Literal["chats", "users", "groups", "calls", "settings"]


def _no_repeats(value: list[str]) -> list[str]:
    seen: set[str] = set()
    for item in value:
        if item in seen:
            raise PydanticCustomError(
                "navigation_repeat",
                "{item} appears twice; the sequence may only reorder or omit {allowed}",
                {"item": repr(item), "allowed": ", ".join(catalog.NAVIGATION_SECTIONS)},
            )
        seen.add(item)
    return value


NavigationSequence = Annotated[list[NavigationSection], AfterValidator(_no_repeats)]


class Style(StrictModel):
    """``settings.style``: colours and docked-icon images."""

    custom_css: str | None = Field(None, description="Custom CSS")
    custom_js: str = Field("v2", description="Custom JS")
    docked_layout_icon_background: Colour = Field(description="Background colour of the icon in docked mode (#03a9f4)")
    docked_layout_icon_close: NonEmptyStr = Field(description="Image on the docked icon when the widget is closed")
    docked_layout_icon_open: NonEmptyStr = Field(description="Image on the docked icon when the widget is open")
    primary_color: Colour = Field("#03A9F4", description="Primary colour")
    foreground_color: Colour = Field("#000000", description="Foreground colour")
    background_color: Colour = Field("#FFFFFF", description="Background colour")
    override_system_background_colors: bool = Field(True, description="Override system background colours")


class Sidebar(StrictModel):
    """``settings.sidebar``: which sections show and what the listings contain."""

    chats: bool = Field(True, description="Show Chats section")
    users: bool = Field(description="Show Users section")
    groups: bool = Field(description="Show Groups section")
    calls: bool = Field(description="Show Calls section")
    user_settings: bool | None = Field(None, description="Show User Settings section")
    recent_chat_listing: RecentChatListing = Field(description="Which chats appear in the recent chat section")
    user_listing: UserListing = Field(description="Which users appear in the user list")
    sidebar_navigation_sequence: NavigationSequence = Field(
        description="Order of sections: may reorder or omit chats, users, groups, calls, settings; never add or repeat"
    )
    start_a_new_conversation: StartConversation = Field("all_chats", description="Start a new conversation scope")
    group_listing: GroupListing = Field("public_and_password_protected_groups", description="Group listing scope")


def _main_fields() -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for t in catalog.MAIN_TOGGLES:
        note = t.label + (f" (needs the {t.extension} extension)" if t.extension else "")
        extra = {"x-api-required": t.required}
        if t.default is None and t.required:
            fields[t.key] = (bool, Field(description=note, json_schema_extra=extra))
        elif t.default is None:
            fields[t.key] = (bool | None, Field(None, description=note, json_schema_extra=extra))
        else:
            fields[t.key] = (bool, Field(t.default, description=note, json_schema_extra=extra))
    return fields


#: ``settings.main``: the 46 feature toggles. Generated from :data:`catalog.MAIN_TOGGLES` so labels, defaults and
#: required-ness have one source. A required toggle with no default must be written; others fall back to defaults.
Main = create_model(
    "Main", __base__=StrictModel, __doc__="``settings.main``: the 46 feature toggles.", **_main_fields()
)


class WidgetSettings(StrictModel):
    """The ``settings`` object of a chat widget v2 (create/update body); also the shape of a preset."""

    name: WidgetName = Field(
        description="Name of the widget (at most 100 characters, one line; a longer one the service holds is kept)"
    )
    version: Literal["v2"] = Field("v2", description="Always v2")
    style: Style
    sidebar: Sidebar
    main: Main  # type: ignore[valid-type]


#: The sections of a widget's settings, each a model of its own, in order: read off :class:`WidgetSettings`, so
#: rules, canonical form and pull never keep a list of their own.
SECTION_MODELS: dict[str, type[StrictModel]] = {
    name: info.annotation
    for name, info in WidgetSettings.model_fields.items()
    if isinstance(info.annotation, type) and issubclass(info.annotation, StrictModel)
}
SECTIONS: tuple[str, ...] = tuple(SECTION_MODELS)


def _patch_of(model: type[StrictModel], name: str) -> type[StrictModel]:
    """The same model with every field optional: what a widget that extends a preset may override."""
    fields: dict[str, Any] = {}
    for key, info in model.model_fields.items():
        annotation = info.annotation
        metadata = list(info.metadata)
        if metadata:
            annotation = Annotated[(annotation, *metadata)]  # keep length limits and validators
        fields[key] = (annotation | None, Field(None, description=info.description))
    return create_model(name, __base__=StrictModel, __doc__=f"Overrides of {model.__name__}.", **fields)


StylePatch = _patch_of(Style, "StylePatch")
SidebarPatch = _patch_of(Sidebar, "SidebarPatch")
MainPatch = _patch_of(Main, "MainPatch")


class WidgetDraft(StrictModel):
    """A widget as written in a draft.

    Without ``extends`` it must be complete (checked in :mod:`tenantdeck.rules` after parsing, so errors point at the
    right keys). With ``extends: PRESET`` it carries only what differs from the preset.
    """

    id: str | None = Field(None, description="widgetId on the service; absent = to be created")
    extends: str | None = Field(None, description="Name of a preset under `presets:` this widget builds on")
    name: WidgetName | None = Field(None, description="Name of the widget (at most 100 characters, one line)")
    version: Literal["v2"] | None = Field(None, description="Always v2")
    style: StylePatch | None = None  # type: ignore[valid-type]
    sidebar: SidebarPatch | None = None  # type: ignore[valid-type]
    main: MainPatch | None = None  # type: ignore[valid-type]

    def overrides(self) -> dict[str, Any]:
        """The settings this widget itself writes (no ``id``/``extends``), as plain data."""
        return self.model_dump(mode="json", exclude_none=True, exclude={"id", "extends"})
