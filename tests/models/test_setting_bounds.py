"""A setting's bounds are checked once, by :meth:`Setting.check` in the extension catalog, with one message: the
models' validation, the editor's form, bulk edit and the test samples all say what it says (issue 35)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tenantdeck.draft import bulk
from tenantdeck.draft import extension_settings_view as xv
from tenantdeck.models.extension_catalog import EXTENSIONS, ExtensionSpec, Setting
from tenantdeck.models.extension_settings import draft_model
from tests.sandbox.ext_samples import sample

#: every bounded setting of the catalog, with its extension
BOUNDED = [(spec, path, setting) for spec in EXTENSIONS for path, setting in spec.fields() if setting.limits()]
MAX_OPTIONS = Setting("maxOptions", "integer", "Most options", minimum=2, maximum=10)


def test_the_catalog_has_bounded_settings_to_check() -> None:
    assert len(BOUNDED) >= 3


def test_bounds_in_words() -> None:
    assert MAX_OPTIONS.check(1) == MAX_OPTIONS.check(11) == "must be from 2 to 10"
    assert MAX_OPTIONS.check(2) is None and MAX_OPTIONS.check(10) is None
    assert MAX_OPTIONS.check("x") is None and MAX_OPTIONS.check(True) is None  # a type is the models' to refuse
    assert Setting("d", "number", "D", minimum=0, unit="seconds").check(-1) == "must be at least 0 seconds"
    assert Setting("r", "number", "R", minimum=1, unit="reports").check(0) == "must be at least 1 report"
    assert Setting("n", "string", "N", max_length=3).check("abcd") == "must be at most 3 characters long"
    assert Setting("l", "strings", "L", min_length=1, max_length=4).check([]) == "must have from 1 to 4 items"


def _model_error(spec: ExtensionSpec, path: str, value: Any) -> str | None:
    """The models' message at ``path`` for a valid block of ``spec`` with ``value`` there, or None."""
    block = {s.key: sample(s) for s in spec.settings}
    block.update({removal: [] for _, removal in spec.removals})
    block[path] = value
    try:
        draft_model(spec.id).model_validate(block)
    except ValidationError as exc:
        return next((e["msg"] for e in exc.errors() if e["loc"] == (path,)), None)
    return None


@pytest.mark.parametrize(("spec", "path", "setting"), BOUNDED, ids=[f"{s.id}.{p}" for s, p, _ in BOUNDED])
@given(value=st.integers(-5, 200))
def test_the_models_the_form_and_bulk_edit_say_what_check_says(spec: ExtensionSpec, path: str, setting: Setting,
                                                               value: int) -> None:
    why = setting.check(value)
    assert _model_error(spec, path, value) == why
    row = xv.Row((path,), xv.NUMBER, setting.label, "", 0, value, str(value), setting=setting)
    assert (xv.parse(row, str(value)).error or None) == why
    field = bulk.find_field(f"{spec.id}.{path}")
    if field is None:  # bulk edit offers no field of it (SMS settings are the sms block's)
        assert spec.id == "sms-notification"
        return
    parsed, message = bulk.parse_value(field, str(value))
    assert (parsed, message) == ((value, None) if why is None else (None, f"{field.label} {why}"))


def test_a_sample_value_keeps_within_the_bounds() -> None:
    assert MAX_OPTIONS.check(sample(MAX_OPTIONS)) is None
    assert MAX_OPTIONS.check(sample(Setting("maxOptions", "integer", "Most options", default=40, maximum=10))) is None
