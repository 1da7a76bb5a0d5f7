"""Every reader of a widget field's effective value agrees: the editor's form, its Preview, the policies engine's
input and the push payload (issue 35: an empty ``send_gifs:`` over a preset that sets it true showed "override,
None" in the form while the Preview and the policies said "true, from preset").

The drafts are layered: a preset and a widget over it (or a complete widget of its own), each writing a field
with a value, an empty value, a value of the wrong type, or not at all. The form, the Preview and the policies read
any draft, valid or not, and must say the same; the push payload exists only for a draft the models accept, and
then it sends that same value.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st

from tenantdeck.draft import widget_view as wv
from tenantdeck.draft.effective_widget import effective_widget
from tenantdeck.draft.extension_view import effective_toggle
from tenantdeck.policies import evaluator
from tenantdeck.policies.finder import widget_leaf
from tenantdeck.sync.kinds.widget import KIND as WIDGET_KIND
from tests.models.factories import full_settings

#: fields of each shape: a toggle with a default, one required without one, a colour, an optional key without a
#: default, a list, a required style key the catalog has a default for
FIELDS: dict[tuple[str, str], list[Any]] = {
    ("main", "send_gifs"): [True, False],
    ("main", "allow_creating_polls"): [True, False],
    ("style", "primary_color"): ["#112233", "#ABCDEF"],
    ("sidebar", "user_settings"): [True, False],
    ("sidebar", "sidebar_navigation_sequence"): [["users", "chats"], ["chats", "users", "groups", "calls"]],
    ("style", "docked_layout_icon_open"): ["https://example.com/open.svg"],
}
WRONG = [3, "yes", [1], {"a": 1}]
MISSING = object()


#: keys the models require of a complete widget (a preset), so a draft that leaves them out is refused
REQUIRED = {("main", "allow_creating_polls"), ("style", "docked_layout_icon_open")}


def layer_value(field: tuple[str, str], broken: bool, in_preset: bool) -> st.SearchStrategy[Any]:
    """What one layer writes for ``field``: nothing, a value, an empty value, or one of the wrong type; a draft
    that is not ``broken`` keeps to what the models accept, so the push payload is compared too."""
    if broken:
        return st.one_of(st.just(MISSING), st.sampled_from(FIELDS[field]), st.none(), st.sampled_from(WRONG))
    if in_preset:
        optional = st.nothing() if field in REQUIRED else st.just(MISSING)
        return st.one_of(optional, st.sampled_from(FIELDS[field]))
    return st.one_of(st.just(MISSING), st.sampled_from(FIELDS[field]), st.none())


def _write(layer: dict[str, Any], field: tuple[str, str], value: Any) -> None:
    section, key = field
    values = layer.setdefault(section, {})
    if value is MISSING:
        values.pop(key, None)
    else:
        values[key] = copy.deepcopy(value)


@st.composite
def layered_drafts(draw: st.DrawFn) -> dict[str, Any]:
    preset = full_settings("Preset")
    mode = draw(st.sampled_from(["extends", "own", "missing preset"]))
    widget: dict[str, Any] = {"extends": "p"} if mode == "extends" else (
        {"extends": "gone"} if mode == "missing preset" else full_settings("Own"))
    broken = draw(st.booleans())
    for field in FIELDS:
        _write(preset, field, draw(layer_value(field, broken, in_preset=True)))
        _write(widget, field, draw(layer_value(field, broken, in_preset=mode == "own")))
    if broken and draw(st.booleans()):  # a section that is not a mapping holds nothing
        widget[draw(st.sampled_from(["style", "sidebar", "main"]))] = draw(st.sampled_from([3, "x", [1]]))
    return {"format": 1, "presets": {"p": preset},
            "apps": [{"name": "a", "region": "us", "widgets": [widget]}]}


def push_payload(data: dict[str, Any]) -> dict[str, Any] | None:
    """The settings a push sends for the app's one widget, or None when the models refuse the draft (nothing is
    pushed then)."""
    from pydantic import ValidationError

    from tenantdeck.models import Draft

    try:
        draft = Draft.model_validate(data)
    except ValidationError:
        return None
    widgets = WIDGET_KIND.from_draft(draft, draft.apps[0], secret_key=b"k", env={})["widgets"]
    (settings,) = widgets.values()
    return settings  # type: ignore[no-any-return]


def readers(data: dict[str, Any], section: str, key: str) -> dict[str, tuple[Any, Any]]:
    """(value, source) of ``section.key`` as each reader has it (source None: the reader has none)."""
    widget, presets = data["apps"][0]["widgets"][0], data["presets"]
    preset = presets.get(widget.get("extends"))
    form = wv.resolve(widget, preset, section, key)
    preview = effective_widget(widget, presets)
    policies = evaluator.normalise(data["apps"][0], presets)["widgets"][0][section]
    return {"form": (form.value, form.source),
            "preview": (preview.section(section).get(key), preview.source_of(section, key)),
            "policies": (policies.get(key), None),
            "policies leaf": (widget_leaf(widget, presets, section, key), None)}


@given(layered_drafts())
def test_the_form_the_preview_the_policies_and_the_push_agree(data: dict[str, Any]) -> None:
    payload = push_payload(data)
    event("pushed" if payload is not None else "refused by the models")
    for section, key in FIELDS:
        seen = readers(data, section, key)
        values = {name: value for name, (value, _) in seen.items()}
        if payload is not None:
            values["push"] = payload[section].get(key)
        assert len({repr(v) for v in values.values()}) == 1, (section, key, values)
        assert seen["form"][1] == seen["preview"][1], (section, key, seen)
        if section == "main":  # the Extensions tab's "which widgets need it" reads the toggle too
            value = seen["form"][0]
            toggle = effective_toggle(data, data["apps"][0]["widgets"][0], key)
            assert toggle == (value if isinstance(value, bool) else None), (key, toggle, value)


def test_an_empty_value_over_a_preset_inherits_the_presets_value_everywhere() -> None:
    """The issue's case, spelt out."""
    data = {"format": 1, "presets": {"p": full_settings("Preset", send_gifs=True)},
            "apps": [{"name": "a", "region": "us", "widgets": [{"extends": "p", "main": {"send_gifs": None}}]}]}
    seen = readers(data, "main", "send_gifs")
    assert seen["form"] == seen["preview"] == (True, "preset")
    assert seen["policies"][0] is True
    payload = push_payload(data)
    assert payload is not None and payload["main"]["send_gifs"] is True
