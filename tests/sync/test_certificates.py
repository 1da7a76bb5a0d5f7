"""Push certificates end to end against the sandbox over HTTP: the draft names a file, push uploads it when its
content changed (not when it did not), the file's bytes never reach a draft, a plan, the journal or the output,
a missing file is a located draft error before any request, and a file taken out of the draft is noted, not deleted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tenantdeck import exitcodes
from tenantdeck.draft import load_draft
from tenantdeck.models.app import PushCertificates
from tenantdeck.sync.render import render_text
from tenantdeck.sync.workspace.local import DraftInvalid, load_local
from tests.sync.helpers_push import (
    app_named,
    call,
    edit_draft,
    live_plan,
    loaded,
    run_pull,
    run_push,
    save_plan,
)
from tests.test_hostile_certificates_cli import P8  # a well-formed stand-in key, whose private value is this:

ENV = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}
MARK = b"Tm90QVJlYWxLZXk"  # "NotARealKey" in the base64 body


def _use(draft: Path, p8: str | None) -> None:
    edit_draft(draft, lambda d: app_named(d, "Acme Support").__setattr__(
        "push_certificates", None if p8 is None else PushCertificates(p8=p8)))


def _everything_written(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file() and p.suffix != ".p8")


def test_a_certificate_is_uploaded_once_and_again_only_when_it_changes(sandbox: Any, draft: Path) -> None:
    (draft.parent / "certs").mkdir()
    key = draft.parent / "certs" / "acme.p8"
    key.write_bytes(P8)
    _use(draft, "certs/acme.p8")
    acme = str(app_named(loaded(draft), "Acme Support").id)
    plan = live_plan(sandbox, draft, ENV)
    (step,) = plan.operations
    assert step.kind == "upload_certificate" and step.rid == "p8"
    assert "certs/acme.p8" in render_text(plan) and MARK.decode() not in json.dumps(plan.to_json())
    code, err = run_push(sandbox, draft, ENV)
    assert code == exitcodes.OK, err
    assert call(sandbox, "query_certificates", acme)["p8"] is True
    assert live_plan(sandbox, draft, ENV).operations == []  # the same file: nothing to upload
    run_pull(sandbox, draft)  # the service cannot say which file: the base keeps what was uploaded
    assert app_named(loaded(draft), "Acme Support").push_certificates.p8 == "certs/acme.p8"
    assert live_plan(sandbox, draft, ENV).operations == []
    key.write_bytes(P8.replace(b"BAQQg", b"BAQQh"))
    (again,) = live_plan(sandbox, draft, ENV).operations
    assert again.kind == "upload_certificate"
    code, err = run_push(sandbox, draft, ENV)
    assert code == exitcodes.OK, err
    assert MARK not in _everything_written(draft.parent) and MARK.decode() not in err


def test_a_missing_file_is_a_located_draft_error_before_any_request(sandbox: Any, draft: Path) -> None:
    """Said as what it is (issue 32 item 8: it was reported as a conflict), at the key's line, exit 1."""
    _use(draft, "certs/missing.p8")
    acme = str(app_named(load_draft(draft).draft, "Acme Support").id)
    with pytest.raises(DraftInvalid) as caught:
        load_local(draft, ENV)
    (problem,) = caught.value.problems
    assert problem.path[-2:] == ("push_certificates", "p8") and "no such file" in problem.message
    lines = draft.read_text(encoding="utf-8").splitlines()
    assert lines[problem.line - 1].strip() == "p8: certs/missing.p8"
    code, err = run_push(sandbox, draft, ENV)
    assert code == exitcodes.ERROR, err
    assert "certs/missing.p8" in err and "conflict" not in err
    assert call(sandbox, "query_certificates", acme)["p8"] is False


def test_a_certificate_taken_out_of_the_draft_stays_and_is_noted(sandbox: Any, draft: Path) -> None:
    (draft.parent / "acme.p8").write_bytes(P8)
    _use(draft, "acme.p8")
    code, err = run_push(sandbox, draft, ENV)
    assert code == exitcodes.OK, err
    edit_draft(draft, lambda d: app_named(d, "Acme Support").__setattr__("push_certificates", PushCertificates()))
    plan = live_plan(sandbox, draft, ENV)
    assert plan.operations == [] and "cannot remove a push certificate" in render_text(plan)


def test_a_wrong_suffix_is_a_located_draft_error(tmp_path: Path) -> None:
    from tenantdeck.draft import load_draft

    path = tmp_path / "d.yaml"
    path.write_text("format: 1\napps:\n- name: A\n  region: us\n  push_certificates:\n    p8: key.pem\n",
                    encoding="utf-8")
    result = load_draft(path)
    (problem,) = [p for p in result.problems if p.severity.name == "ERROR"]
    assert problem.line == 6 and "must name a .p8 file" in problem.message


def test_the_bytes_uploaded_are_the_bytes_whose_fingerprint_the_plan_shows(sandbox: Any, draft: Path) -> None:
    """The plan fingerprints the file; the push reads it again, once, at the upload: a file changed in between (a
    link swapped to another file, a rewrite) fails that step, and nothing of it is sent."""
    key = draft.parent / "acme.p8"
    key.write_bytes(P8)
    _use(draft, "acme.p8")
    acme = str(app_named(loaded(draft), "Acme Support").id)
    plan_file = draft.parent / "plan.json"
    save_plan(live_plan(sandbox, draft, ENV), plan_file)
    key.write_bytes(P8.replace(b"BAQQg", b"BAQQh"))
    code, err = run_push(sandbox, None, ENV, plan_file=plan_file)
    assert code == exitcodes.PARTIAL, err
    assert "changed since the plan was made" in err and MARK.decode() not in err
    assert call(sandbox, "query_certificates", acme)["p8"] is False


def test_a_saved_plan_refused_for_a_changed_file_says_to_plan_again(sandbox: Any, draft: Path) -> None:
    """Trial L, L10: the summary ended with "Run the same push again to finish", which can only fail the same way.
    Keyed on the failure's code (``ops.CHANGED_SINCE_PLAN``), not its text: it says to make the plan again."""
    from tenantdeck.sync.remote.ops import CHANGED_SINCE_PLAN, StepFailed, attach_files

    key = draft.parent / "acme.p8"
    key.write_bytes(P8)
    _use(draft, "acme.p8")
    plan_file = draft.parent / "plan.json"
    plan = live_plan(sandbox, draft, ENV)
    save_plan(plan, plan_file)
    key.write_bytes(P8.replace(b"BAQQg", b"BAQQh"))
    (step,) = plan.operations
    with pytest.raises(StepFailed) as caught:
        attach_files(step, dict(step.payload), folder=draft.parent, env=ENV, secret_key=b"k" * 32)
    assert caught.value.code == CHANGED_SINCE_PLAN
    code, err = run_push(sandbox, None, ENV, plan_file=plan_file)
    assert code == exitcodes.PARTIAL, err
    last = err.strip().splitlines()[-1]
    assert "Run the same push again" not in err and last.startswith("Make the plan again to finish"), err
    assert "tenantdeck plan -o" in last
