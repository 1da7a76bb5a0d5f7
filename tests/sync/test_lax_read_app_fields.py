"""Trial L, L6: an app's own fields as the service may hold them (a name with a newline, a region outside
us/eu/in, a version other than "3", a blank name) through the real commands against the in-process sandbox. Each
failed before its fix: ``pull`` ended in a pydantic traceback (``1 validation error for App / name``), exit 1,
nothing pulled. Now the app is kept out of the draft as the service holds it, with a note naming it (escaped), its
base keeps it, and ``diff``/``push`` plan nothing for it (not a delete, not a create)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenantdeck import exitcodes
from tests.fuzzing import examples
from tests.sync.helpers_push import call
from tests.sync.service_states import ServiceLike, hold_app_fields
from tests.sync.test_lax_read_trial import (
    assert_in_sync_and_push_sends_nothing,
    assert_terminal_safe,
    base_app,
    run,
)
from tests.sync.test_lax_read_trial import service as service  # the fixture the tests ask for


def globex(service: ServiceLike) -> str:
    return next(a.id for a in call(service.app, "list_apps") if a.name == "Globex Community")


def draft_names(tmp_path: Path) -> list[str]:
    return [a["name"] for a in yaml.safe_load((tmp_path / "tenantdeck.yaml").read_text())["apps"]]


def test_an_app_name_with_a_newline_is_kept_out_of_the_draft_with_a_note(service: ServiceLike,
                                                                         tmp_path: Path) -> None:
    """L6's repro: pull exits 0, names the app escaped and why; the draft has the other apps; the base keeps the
    app whole; diff exit 0 and push sends nothing; a second pull says the same."""
    app_id = globex(service)
    hold_app_fields(service.app, app_id, {"name": "Glo\nbex\x1b[2J"})
    pulled = run("pull")
    assert pulled.exit_code == exitcodes.OK, pulled.output
    assert_terminal_safe(pulled)
    (note,) = [line for line in pulled.stderr.splitlines() if app_id in line]
    assert "Glo\\nbex\\x1b[2J" in note and "kept as the service holds it" in note
    assert "name: must be a single line" in note
    assert "; kept 1 app out of the draft, as the service holds it (see the note)" in pulled.output
    assert draft_names(tmp_path) == ["Acme Support", "Initech Field Chat"]
    assert base_app(tmp_path, app_id)["verbatim"] == {"app": ["name"]}
    assert_in_sync_and_push_sends_nothing(service)
    again = run("pull")
    assert again.exit_code == exitcodes.OK and "Glo\\nbex" in again.stderr, again.output
    assert_in_sync_and_push_sends_nothing(service)


def test_an_app_the_draft_holds_renamed_with_a_newline_on_the_service(service: ServiceLike,
                                                                      tmp_path: Path) -> None:
    """An app already in the draft whose name the dashboard changed to two lines: the pull takes it out of the
    draft (it cannot write the name, and the old one would be a rename back), keeps it in the base: no delete."""
    assert run("pull").exit_code == exitcodes.OK
    app_id = globex(service)
    hold_app_fields(service.app, app_id, {"name": "Glo\nbex"})
    pulled = run("pull")
    assert pulled.exit_code == exitcodes.OK, pulled.output
    assert "Globex Community" not in draft_names(tmp_path)
    assert_in_sync_and_push_sends_nothing(service)
    assert [a for a in call(service.app, "list_apps") if a.id == app_id]  # still on the service


def test_a_region_the_draft_refuses_is_kept_the_same_way(service: ServiceLike, tmp_path: Path) -> None:
    """The known limit docs/security.md named (a region outside us/eu/in stopped pull with a traceback)."""
    app_id = globex(service)
    hold_app_fields(service.app, app_id, {"region": "mars", "version": "2"})
    pulled = run("pull")
    assert pulled.exit_code == exitcodes.OK, pulled.output
    assert_terminal_safe(pulled)
    assert base_app(tmp_path, app_id)["verbatim"] == {"app": ["region", "version"]}
    assert_in_sync_and_push_sends_nothing(service)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=5,
)
ODD_TEXT = st.sampled_from(["", " ", "\n", "a\nb", "a\rb", "x\u202ey", "\x1b]52;c;aGk=\x07", "\x00", "a" * 101,
                            "us", "EU", "in ", "3", "2", "3\n", "Acme Support"])


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(["name", "region", "version"]), value=ODD_TEXT | st.text(max_size=120) | JSONISH)
def test_any_value_of_an_app_field_is_pulled_or_refused_never_a_traceback(service: ServiceLike, tmp_path: Path,
                                                                         key: str, value: Any) -> None:
    """Whatever JSON the service sends for an app's name, region or version: pull exits 0 (the app in the draft,
    or kept out of it with a note) and then diff and push plan nothing, or pull refuses the answer as documented
    (docs/real-service.md: a name or region that is not text is an unexpected response, nothing written)."""
    app_id = globex(service)
    hold_app_fields(service.app, app_id, {key: value})
    try:
        pulled = run("pull")
        assert pulled.exception is None or isinstance(pulled.exception, SystemExit), pulled.output
        assert "Traceback" not in pulled.output and "validation error" not in pulled.output, pulled.output
        if pulled.exit_code != exitcodes.OK:
            assert key == "name" and not isinstance(value, str), pulled.output
            assert "unexpected response" in pulled.output, pulled.output
            return
        kept = base_app(tmp_path, app_id).get("verbatim", {}).get("app")
        assert (kept is None) == (app_id in json.dumps(yaml.safe_load((tmp_path / "tenantdeck.yaml").read_text())))
        if kept:
            assert app_id in pulled.stderr
        assert_in_sync_and_push_sends_nothing(service)
    finally:
        hold_app_fields(service.app, app_id, {"name": "Globex Community", "region": "eu", "version": "3"})
