"""Saved plans (``plan -o FILE`` then ``push FILE``) are pushed only if what they would send is what they show.

Trial L, L1: the hash is no signature, so a plan edited with its hash made again was pushed: a saved plan is now
signed with a key derived from the target's credentials, and an edit by anyone without them is refused. The tests
that "hold the credentials" sign again (:func:`_resign`), to reach the checks behind the signature.

Trial F16: a plan whose ``operations[0].payload`` alone was edited to ``#FF0000`` printed and recorded the plan's
``"#03A9F4" -> "#112233"`` but sent ``#FF0000`` (the next diff called it someone else's change); a payload turned
into a list failed the push with "'list' object has no attribute 'get'" (exit 4). Each case here pushes through the
engine to an in-process sandbox over HTTP, as the other push tests do; the properties mutate a real saved plan.
"""

from __future__ import annotations

import contextlib
import copy
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenantdeck import exitcodes
from tenantdeck.sync.plan import Plan
from tenantdeck.sync.remote.planfile import PlanFileInvalid, disagreements, parse_plan, signature
from tenantdeck.targets import Target
from tests.fuzzing import examples
from tests.models import factories
from tests.sync.helpers_push import (
    BASE_URL,
    PLAN_KEY,
    call,
    forged,
    make_sandbox,
    run_pull,
    run_push,
    save_plan,
)
from tests.sync.test_push import live_plan
from tests.sync.test_push_trust import ENV

OLD, SHOWN, HIDDEN = "#03A9F4", "#112233", "#FF0000"
#: what a Python error looks like when it leaks into a message instead of a located, human line
PYTHON_WORDS = ("Traceback", "object has no attribute", "KeyError", "TypeError", "AttributeError", "NoneType",
                "dictionary update sequence", "unhashable", "not subscriptable", "is not iterable",
                "Input should be", "__", "ValidationError")


def _colour_plan(root: Path) -> tuple[Any, Path, Path]:
    """A pulled sandbox account whose draft sets the first widget's primary colour to SHOWN, and its saved plan."""
    sandbox = make_sandbox(root / "db.sqlite3")
    draft = root / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    text = draft.read_text(encoding="utf-8")
    at = text.index("primary_color:")
    draft.write_text(text[:at] + f'primary_color: "{SHOWN}"' + text[text.index("\n", at):], encoding="utf-8")
    plan_file = save_plan(live_plan(sandbox, draft, ENV), root / "p.json")
    return sandbox, draft, plan_file


def _colours(sandbox: Any) -> set[str]:
    """Every widget's primary colour on the service."""
    out: set[str] = set()
    for app in call(sandbox, "list_apps"):
        for widget in call(sandbox, "list_widgets", app.id):
            out.add(str(widget.settings.get("style", {}).get("primary_color")))
    return out


def _rehash(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with the plan_hash a determined editor would compute again (anyone can: it is no signature)."""
    doc = copy.deepcopy(doc)
    doc["plan_hash"] = Plan.from_json(doc).plan_hash()
    return doc


def _resign(doc: dict[str, Any], key: bytes = PLAN_KEY) -> dict[str, Any]:
    """``doc`` rehashed and signed again with ``key``: what only someone holding the target's credentials can
    write (the default key is the test sandbox target's)."""
    doc = json.loads(json.dumps(_rehash(doc)))
    doc["signature"] = signature(doc, key)
    return doc


def _canonical(doc: Any) -> str:
    return json.dumps({k: v for k, v in doc.items() if k != "signature"} if isinstance(doc, dict) else doc,
                      sort_keys=True, separators=(",", ":"))


def _no_python(text: str) -> None:
    for word in PYTHON_WORDS:
        assert word not in text, text


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pulled account with its saved plan, never written again: each test copies it (:func:`_copy`); the
    service's colours before any push are kept beside it (``colours.json``), so no test opens its database."""
    root = tmp_path_factory.mktemp("plan-file")
    sandbox, _, _ = _colour_plan(root)
    (root / "colours.json").write_text(json.dumps(sorted(_colours(sandbox))), encoding="utf-8")
    return root


def _before(template: Path) -> set[str]:
    return set(json.loads((template / "colours.json").read_text(encoding="utf-8")))


def _copy(template: Path, to: Path) -> tuple[Any, Path, Path]:
    """A fresh account and workspace, copied from the template (a pull per example would take seconds). The
    database is copied through SQLite's backup (its WAL files come and go with the template's connections)."""
    shutil.copytree(template, to, dirs_exist_ok=True, ignore=shutil.ignore_patterns("db.sqlite3*"))
    with contextlib.closing(sqlite3.connect(template / "db.sqlite3")) as src, \
            contextlib.closing(sqlite3.connect(to / "db.sqlite3")) as dst:
        src.backup(dst)
    return make_sandbox(to / "db.sqlite3", seed=False), to / "tenantdeck.yaml", to / "p.json"


def test_an_unedited_saved_plan_pushes_what_it_shows(template: Path, tmp_path: Path) -> None:
    sandbox, draft, plan_file = _copy(template, tmp_path / "w")
    code, err = run_push(sandbox, draft, ENV, plan_file=plan_file)
    assert code == exitcodes.OK, err
    assert SHOWN in _colours(sandbox) and f'"{OLD}" -> "{SHOWN}"' in err


def test_a_payload_edited_alone_is_refused_with_both_hashes_and_nothing_is_sent(template: Path,
                                                                                 tmp_path: Path) -> None:
    """The trial's steps: only ``operations[0].payload.settings.style.primary_color`` changed. Fails without the
    plan file check: exit 0, and the service holds #FF0000."""
    sandbox, draft, plan_file = _copy(template, tmp_path / "w")
    doc = json.loads(plan_file.read_text(encoding="utf-8"))
    doc["operations"][0]["payload"]["settings"]["style"]["primary_color"] = HIDDEN
    plan_file.write_text(json.dumps(doc), encoding="utf-8")
    code, err = run_push(sandbox, draft, ENV, plan_file=plan_file)
    assert code == exitcodes.ERROR, err
    assert f"{plan_file}: plan_hash: the operations are not the ones `tenantdeck plan` wrote" in err
    assert f"plan {doc['plan_hash']} recorded" in err and "it was changed after it was written" in err
    assert f"error: {plan_file} cannot be pushed; nothing was pushed (make the plan again with `tenantdeck plan -o" \
        in err
    assert HIDDEN not in _colours(sandbox) and SHOWN not in _colours(sandbox)  # nothing pushed
    _no_python(err)


def test_a_payload_edited_and_signed_again_is_refused_where_it_disagrees(template: Path, tmp_path: Path) -> None:
    """Whoever holds the credentials (and so can sign) still cannot make a saved plan send what it does not show."""
    sandbox, draft, plan_file = _copy(template, tmp_path / "w")
    doc = json.loads(plan_file.read_text(encoding="utf-8"))
    doc["operations"][0]["payload"]["settings"]["style"]["primary_color"] = HIDDEN
    plan_file.write_text(json.dumps(_resign(doc)), encoding="utf-8")
    code, err = run_push(sandbox, draft, ENV, plan_file=plan_file)
    assert code == exitcodes.ERROR, err
    assert (f'{plan_file}: operations[0].payload: not what the plan shows: settings.style.primary_color: sends '
            f'"{HIDDEN}", the plan shows "{SHOWN}"') in err
    assert HIDDEN not in _colours(sandbox)


def _backgrounds(sandbox: Any) -> set[str]:
    return {str(w.settings.get("style", {}).get("background_color"))
            for app in call(sandbox, "list_apps") for w in call(sandbox, "list_widgets", app.id)}


def test_a_forged_plan_with_its_hash_made_again_is_refused_and_nothing_is_sent(template: Path,
                                                                                tmp_path: Path) -> None:
    """Trial L, L1: the plan file edited after ``plan -o`` (a change in neither the draft nor plan.md), its
    plan_hash computed again, was pushed (exit 0, the service held #000000). Fails without the signature: the
    file agrees with itself, so every other check passes."""
    sandbox, draft, plan_file = _copy(template, tmp_path / "w")
    doc = _rehash(forged(json.loads(plan_file.read_text(encoding="utf-8"))))
    assert disagreements(Plan.from_json(doc)) == []  # nothing but the signature tells it from a real plan
    plan_file.write_text(json.dumps(doc), encoding="utf-8")
    code, err = run_push(sandbox, draft, ENV, plan_file=plan_file)
    assert code == exitcodes.ERROR, err
    assert (f"error: {plan_file}: signature: does not match this file and the credentials of the target it is "
            "pushed to") in err and "make the plan again with `tenantdeck plan -o FILE`" in err
    assert "#000000" not in _backgrounds(sandbox) and _colours(sandbox) == _before(template)  # nothing sent
    assert "Push complete" not in err
    _no_python(err)


def test_a_plan_signed_with_another_targets_credentials_is_refused(template: Path, tmp_path: Path) -> None:
    """A plan made (and signed) for another account, with other credentials, is not pushed to this one, even
    unedited: here the file is signed for another key and secret at the same address."""
    sandbox, draft, plan_file = _copy(template, tmp_path / "w")
    doc = json.loads(plan_file.read_text(encoding="utf-8"))
    plan_file.write_text(json.dumps(_resign(doc, Target("other", BASE_URL, "other-key", "other-secret")
                                            .plan_key())), encoding="utf-8")
    code, err = run_push(sandbox, draft, ENV, plan_file=plan_file)
    assert code == exitcodes.ERROR, err
    assert f"error: {plan_file}: signature: does not match" in err and "another account" in err
    assert _colours(sandbox) == _before(template)


def test_an_unsigned_plan_file_is_refused_saying_to_make_it_again(template: Path, tmp_path: Path) -> None:
    """A plan file of an older tenantdeck (no signature) or written by another tool: refused in words."""
    sandbox, draft, plan_file = _copy(template, tmp_path / "w")
    doc = json.loads(plan_file.read_text(encoding="utf-8"))
    doc.pop("signature")
    plan_file.write_text(json.dumps(doc), encoding="utf-8")
    code, err = run_push(sandbox, draft, ENV, plan_file=plan_file)
    assert code == exitcodes.ERROR, err
    assert (f"error: {plan_file}: signature: missing: only a plan file `tenantdeck plan -o FILE` wrote (signed "
            "with the target's credentials) is pushed; make the plan again with `tenantdeck plan -o FILE`") in err
    assert _colours(sandbox) == _before(template)


def test_the_signature_holds_nothing_of_the_credentials(template: Path) -> None:
    """Only the HMAC is written: neither the key, the secret, nor the key derived from them."""
    text = (template / "p.json").read_text(encoding="utf-8")
    from tests.sync.helpers_push import KEY, SECRET

    assert KEY not in text and SECRET not in text and PLAN_KEY.hex() not in text
    assert json.loads(text)["signature"].startswith("hmac-sha256:")


def test_changes_and_payload_edited_together_and_signed_push_what_the_plan_then_shows(template: Path,
                                                                                      tmp_path: Path) -> None:
    """Signed by whoever holds the credentials, and consistent: the plan shows the new value, and that is what is
    sent and recorded."""
    sandbox, draft, plan_file = _copy(template, tmp_path / "w")
    doc = json.loads(plan_file.read_text(encoding="utf-8"))
    op = doc["operations"][0]
    op["payload"]["settings"]["style"]["primary_color"] = HIDDEN
    next(c for c in op["changes"] if c["path"] == "style.primary_color")["after"] = HIDDEN
    plan_file.write_text(json.dumps(_resign(doc)), encoding="utf-8")
    code, err = run_push(sandbox, draft, ENV, plan_file=plan_file)
    assert code == exitcodes.OK, err
    assert f'"{OLD}" -> "{HIDDEN}"' in err and HIDDEN in _colours(sandbox)


@pytest.mark.parametrize(("edit", "line"), [
    (lambda d: d["operations"][0].__setitem__("payload", []),
     "operations[0].payload: expected an object (got a list)"),
    (lambda d: d.__setitem__("operations", "x"), "operations: expected a list (got text)"),
    (lambda d: d["operations"][0].pop("kind"), "operations[0].kind: missing"),
    (lambda d: d["operations"][0].__setitem__("kind", "drop_database"),
     "operations[0].kind: 'drop_database' is not a step tenantdeck knows"),
    (lambda d: d["operations"][0]["changes"][0].__setitem__("path", 5),
     "operations[0].changes[0].path: expected text (got a number)"),
    (lambda d: d.__setitem__("fingerprints", []), "fingerprints: expected an object (got a list)"),
    (lambda d: d.__setitem__("format_version", 99), "format_version: unsupported plan format_version 99"),
    (lambda d: d.pop("plan_hash"), "plan_hash: missing"),
    (lambda d: d.pop("signature"), "signature: missing"),
    (lambda d: d.__setitem__("signature", ["x"]), "signature: expected text (got a list)"),
    (lambda d: d.pop("plan_id"), "plan_id: missing: this file was not written by this version's `plan -o`"),
    (lambda d: d.__setitem__("plan_id", "../*"), "plan_id: not an id `tenantdeck plan` writes"),
])
def test_a_malformed_plan_file_is_named_where_it_is_wrong(template: Path, tmp_path: Path, edit: Any,
                                                          line: str) -> None:
    """Trial: a payload that is a list failed the push itself ("'list' object has no attribute 'get'", exit 4,
    a junk partial push in the history); ``"operations": "x"`` gave "dictionary update sequence element"."""
    sandbox, draft, plan_file = _copy(template, tmp_path / "w")
    doc = json.loads(plan_file.read_text(encoding="utf-8"))
    edit(doc)
    plan_file.write_text(json.dumps(doc), encoding="utf-8")
    code, err = run_push(sandbox, draft, ENV, plan_file=plan_file)
    assert code == exitcodes.ERROR, err
    assert f"error: {plan_file}: {line}" in err
    assert "nothing was pushed" in err
    _no_python(err)


def test_a_shown_value_the_plan_builder_refuses_is_refused_from_a_saved_plan_too(template: Path,
                                                                                   tmp_path: Path) -> None:
    """``diff``/``plan`` refuse a widget name over 100 characters (a refused value); a saved plan edited to show
    and send one (its hash made again) is not a way around that rule."""
    sandbox, draft, plan_file = _copy(template, tmp_path / "w")
    doc = json.loads(plan_file.read_text(encoding="utf-8"))
    op = doc["operations"][0]
    before = op["payload"]["settings"]["name"]
    op["payload"]["settings"]["name"] = "N" * 101
    op["changes"].append({"path": "name", "label": "Name", "before": before, "after": "N" * 101,
                          "origin": "local", "secret": False, "app": "", "resource": ""})
    plan_file.write_text(json.dumps(_resign(doc)), encoding="utf-8")
    code, err = run_push(sandbox, draft, ENV, plan_file=plan_file)
    assert code == exitcodes.ERROR, err
    assert (f"{plan_file}: operations[0].changes: widget name is 101 characters; at most 100 may be sent; a push "
            "does not send it") in err


def test_every_step_kind_has_a_payload_rule() -> None:
    """A saved step whose payload this version cannot derive is refused, never pushed unchecked: so every step
    kind of the registry has its rule (a new kind's steps fail here first)."""
    from tenantdeck.sync.kinds import STEPS
    from tenantdeck.sync.remote.planfile import DERIVED

    assert set(STEPS) == DERIVED


def test_a_plan_file_nested_too_deep_is_one_line_not_a_recursion_error(tmp_path: Path) -> None:
    """Seen running the CLI: ``push deep.json`` (200,000 ``[``) ended in a RecursionError traceback while the push
    looked for the draft the plan names, before the plan was read."""
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    plan_file = tmp_path / "deep.json"
    plan_file.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    code, err = run_push(sandbox, None, ENV, plan_file=plan_file)
    assert code == exitcodes.ERROR, err
    assert f"error: {plan_file}: nested more than 100 levels deep; not a saved plan" in err
    _no_python(err)


def test_truncated_json_is_placed_at_its_line_and_column(tmp_path: Path) -> None:
    with pytest.raises(PlanFileInvalid) as caught:
        parse_plan(tmp_path / "p.json", b'{"format_version": 1, "operations": [', key=PLAN_KEY)
    assert caught.value.lines == [f"{tmp_path / 'p.json'}:1:38: not valid JSON: Expecting value"]


def test_a_placeholder_moved_to_a_field_that_is_no_secret_is_refused() -> None:
    """A secret placeholder is resolved at push time: put where a non-secret field is, it would send a secret
    (say the management secret, as ``var``) into a field anyone can read."""
    from tests.sync.test_plan import build_plan, compare_all, setup

    draft, base, new = setup()
    plan = build_plan(compare_all([new], {"a1": base}, {"a1": copy.deepcopy(base)}), draft)
    doc = json.loads(json.dumps(plan.to_json()))
    (op,) = doc["operations"]
    op["payload"]["url"] = {"$secret": {**op["payload"]["password"]["$secret"], "var": "TENANTDECK_SECRET"}}
    with pytest.raises(PlanFileInvalid) as caught:
        parse_plan(Path("p.json"), json.dumps(_resign(doc)).encode(), key=PLAN_KEY)
    assert "operations[0].payload: not what the plan shows: url: a secret placeholder where the plan shows" in \
        caught.value.lines[0]


def test_a_placeholder_reading_another_variable_than_the_draft_names_is_refused(tmp_path: Path) -> None:
    """A secret is shown only as "will be set": an edited ``var`` would send that variable (here the management
    secret) as the webhook's password, unseen. Each placeholder must read what the draft's field names."""
    from tests.sync.test_push_trust import add_app

    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    add_app(draft, "Plan C", webhooks=[factories.webhook("fresh", password="${NEW_HOOK_PW}")])
    doc = live_plan(sandbox, draft, ENV).to_json()
    (hook,) = [op for op in doc["operations"] if op["kind"] == "create_webhook"]
    assert hook["payload"]["password"]["$secret"]["var"] == "NEW_HOOK_PW"
    hook["payload"]["password"]["$secret"]["var"] = "TENANTDECK_SECRET"
    plan_file = tmp_path / "p.json"
    plan_file.write_text(json.dumps(_resign(doc)), encoding="utf-8")
    apps = {a.name for a in call(sandbox, "list_apps")}
    code, err = run_push(sandbox, None, {**ENV, "TENANTDECK_SECRET": "TheManagementSecret42"}, plan_file=plan_file)
    assert code == exitcodes.ERROR, err
    n = doc["operations"].index(hook)
    assert (f"{plan_file}: operations[{n}].payload.password: the plan reads this secret from ${{TENANTDECK_SECRET}}, "
            "the draft from ${NEW_HOOK_PW}; make the plan again") in err
    assert {a.name for a in call(sandbox, "list_apps")} == apps  # nothing created


# -- properties: any field of a real saved plan changed to another value ---------------------------------------


def _places(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document (the root excluded)."""
    out: list[tuple[Any, ...]] = [at] if at else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _places(item, (*at, key))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            out += _places(item, (*at, n))
    return out


def _put(doc: Any, at: tuple[Any, ...], value: Any) -> None:
    for part in at[:-1]:
        doc = doc[part]
    doc[at[-1]] = value


OTHER = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.sampled_from(
        ["", "x", HIDDEN, SHOWN, "update_widget", "delete_app", "$secret", "a/b", "\x1b[2J"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["settings", "style", "primary_color", "$secret", "ids", "x"]), inner, max_size=3),
    max_leaves=6)


def _then(doc: dict[str, Any], data: st.DataObject) -> tuple[dict[str, Any], bool]:
    """``doc`` as it is, with its hash made again (anyone can), or signed again (only whoever holds the target's
    credentials can); and whether it was signed again."""
    how = data.draw(st.sampled_from(["as edited", "hash made again", "signed again"]), label="then")
    if how == "as edited" or not _hashable(doc):
        return doc, False
    return (_resign(doc), True) if how == "signed again" else (_rehash(doc), False)


def _changed(doc: dict[str, Any], original: dict[str, Any]) -> bool:
    """Whether ``doc`` is other JSON data than ``original`` (its signature included; ``1`` and ``true`` differ)."""
    return json.dumps(doc, sort_keys=True) != json.dumps(original, sort_keys=True)


def _mutated(doc: dict[str, Any], data: st.DataObject) -> tuple[dict[str, Any], bool]:
    doc = copy.deepcopy(doc)
    places = _places(doc)
    for _ in range(data.draw(st.integers(1, 3), label="how many")):
        at = data.draw(st.sampled_from(places), label="where")
        try:
            _put(doc, at, data.draw(OTHER, label="value"))
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed the place
    return _then(doc, data)


def _hashable(doc: dict[str, Any]) -> bool:
    try:
        Plan.from_json(doc).plan_hash()
    except Exception:  # a shape the plan model cannot take: the file is refused either way
        return False
    return True


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mutated_plan_file_is_refused_in_words_or_shows_what_it_sends(template: Path, data: st.DataObject) -> None:
    """A file changed anywhere is refused unless signed again with the target's credentials; signed again, it is
    refused in words or sends exactly what it shows."""
    doc = json.loads((template / "p.json").read_text(encoding="utf-8"))
    mutated, signed = _mutated(doc, data)
    try:
        plan = parse_plan(Path("p.json"), json.dumps(mutated).encode(), key=PLAN_KEY)
    except PlanFileInvalid as exc:
        assert exc.lines and all(line.startswith("p.json") or line.startswith("...") for line in exc.lines)
        for line in exc.lines:
            _no_python(line)
        return
    assert signed or not _changed(mutated, doc), "a file edited without the credentials was accepted"
    assert disagreements(plan) == []
    for op in plan.operations:  # what it sends at each field it shows is what it shows
        if op.kind == "update_widget":
            style = op.payload["settings"].get("style", {})
            for change in op.changes:
                if change.path == "style.primary_color":
                    assert style.get("primary_color") == change.after


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mutated_plan_file_never_pushes_a_value_it_does_not_show(template: Path, tmp_path_factory: Any,
                                                                   data: st.DataObject) -> None:
    """End to end: a file changed without the credentials is refused (exit 1, nothing sent); signed again, the
    push either refuses (exit 1 or 3, in words, nothing sent) or the service ends up with exactly the primary
    colour the printed plan shows."""
    sandbox, draft, plan_file = _copy(template, tmp_path_factory.mktemp("example"))
    doc = json.loads(plan_file.read_text(encoding="utf-8"))
    # the interesting places: the widget step's payload and changes
    op = doc["operations"][0]
    places = [("operations", 0, *p) for p in _places(op) if p[0] in ("payload", "changes")]
    if data.draw(st.booleans(), label="anywhere in the file"):
        places = _places(doc)
    if data.draw(st.booleans(), label="the shown change and its payload alike"):
        value = data.draw(st.sampled_from([HIDDEN, OLD, "#abc", "x", "\x1b[2J"]), label="colour")
        op["payload"]["settings"]["style"]["primary_color"] = value
        next(c for c in op["changes"] if c["path"] == "style.primary_color")["after"] = value
    else:
        at = data.draw(st.sampled_from(places), label="where")
        _put(doc, at, data.draw(OTHER | st.sampled_from([HIDDEN, SHOWN, OLD]), label="value"))
    original = json.loads(plan_file.read_text(encoding="utf-8"))
    doc, signed = _then(doc, data)
    plan_file.write_text(json.dumps(doc), encoding="utf-8")
    code, err = run_push(sandbox, draft, ENV, plan_file=plan_file)
    _no_python(err)
    colours = _colours(sandbox)
    if not signed and _changed(doc, original):
        assert code == exitcodes.ERROR and "nothing was pushed" in err, err
        assert colours == _before(template), err
        return
    if code == exitcodes.PARTIAL:  # shown and sent alike, and the service refused it (a colour it cannot hold)
        assert "failed" in err and colours == _before(template), err
        return
    if code != exitcodes.OK:
        assert code in (exitcodes.ERROR, exitcodes.CONFLICT), err
        assert colours == _before(template), err
        return
    shown = [c for c in doc["operations"][0]["changes"] if c.get("path") == "style.primary_color"]
    if shown:
        after = shown[0]["after"]
        assert after in colours, err  # what the service holds is what the plan showed ...
        if isinstance(after, str) and after.isprintable():
            assert f'-> "{after}"' in err, err  # ... and what the push printed
