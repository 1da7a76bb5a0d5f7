"""Turning a webhook's Basic Auth on with an unset ``${VAR}`` password (trial J, J5), through the real commands
against the in-process sandbox.

The service answers an update that sets ``useBasicAuth: true`` without a password, for a webhook that holds none,
with a 422: a push that left the password out as "left as it is on the service" failed there, after any earlier
writes, and again on every retry. The password is needed by such a change, so its unset variable refuses the push
before the first write, at the password's line, naming the variable; ``diff`` and ``plan`` say the push needs it.
A webhook created with Basic Auth on needs its password the same way. An unset password the change does not need
(Basic Auth already on and a password stored, as tenantdeck last pushed them) is still only a warning.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tenantdeck import exitcodes
from tenantdeck.models import Webhook
from tests.sync.helpers_push import app_named, edit_draft
from tests.test_hostile_certificates_cli import draft, env, tenantdeck  # the pulled draft and the CLI, as there
from tests.yamltext import has_id

__all__ = ["draft", "env"]

APP = "Acme Support"
VAR = "NOT_SET_PW"

pytestmark = pytest.mark.timeout(60)


def stored_webhook(env: dict[str, str], webhook_id: str) -> tuple[dict[str, Any], str | None] | None:
    """What the sandbox holds for the webhook, write-only fields and password included (the API reports neither):
    the proof that nothing was written."""
    db = Path(env["TENANTDECK_DATA_DIR"]) / "sandbox.sqlite3"
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT doc, password FROM webhooks WHERE webhook_id = ?", (webhook_id,)).fetchone()
    return None if row is None else (json.loads(row[0]), row[1])


def turn_on_basic_auth(draft: Path) -> int:
    """The J5 edit on webhook ``audit`` (no Basic Auth, no password stored); returns the password's line."""
    def change(d: Any) -> None:
        hook = next(h for h in app_named(d, APP).webhooks if h.id == "audit")
        hook.useBasicAuth, hook.username, hook.password = True, "acme", f"${{{VAR}}}"

    edit_draft(draft, change)
    return password_line(draft, "audit")


def password_line(draft: Path, webhook_id: str) -> int:
    lines = draft.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if has_id(line, webhook_id))
    return next(i for i, line in enumerate(lines) if i > start and f"${{{VAR}}}" in line) + 1


def test_turning_basic_auth_on_with_an_unset_password_is_refused_before_any_write(
        draft: Path, env: dict[str, str]) -> None:
    before = stored_webhook(env, "audit")
    assert before is not None and before[1] is None and not before[0].get("useBasicAuth")
    line = turn_on_basic_auth(draft)

    pushed = tenantdeck("push", "--draft", str(draft), "--yes", env=env)

    assert pushed.exit_code == exitcodes.ERROR, pushed.output
    assert f"{draft}:{line}" in pushed.output and "apps[0].webhooks[1].password" in pushed.output
    assert VAR in pushed.output and "nothing was pushed" in pushed.output
    assert "left as it is on the service" not in pushed.output and "Push incomplete" not in pushed.output
    assert stored_webhook(env, "audit") == before

    # diff and plan say the push needs it (the change is still one to push: a job with the variable set can)
    for command in ("diff", "plan"):
        args = ("--out", str(draft.parent / "plan.json")) if command == "plan" else ()
        shown = tenantdeck(command, "--draft", str(draft), *args, env=env)
        assert shown.exit_code == exitcodes.CHANGES, shown.output
        assert VAR in shown.output and "apps[0].webhooks[1].password" in shown.output, shown.output
    assert stored_webhook(env, "audit") == before

    shown = tenantdeck("diff", "--draft", str(draft), env={**env, VAR: "Sup3rSecret"})
    assert shown.output.count("Basic Auth password") == 1 and VAR not in shown.output, shown.output
    pushed = tenantdeck("push", "--draft", str(draft), "--yes", env={**env, VAR: "Sup3rSecret"})
    assert pushed.exit_code == exitcodes.OK, pushed.output
    doc, password = stored_webhook(env, "audit") or ({}, None)
    assert (doc.get("useBasicAuth"), doc.get("username"), password) == (True, "acme", "Sup3rSecret")
    assert "Sup3rSecret" not in pushed.output


def test_a_new_webhook_with_basic_auth_and_an_unset_password_is_refused_before_any_write(
        draft: Path, env: dict[str, str]) -> None:
    def change(d: Any) -> None:
        app_named(d, APP).webhooks.append(Webhook(id="ledger", name="Ledger", webhookURL="https://l.example/in",
                                                  useBasicAuth=True, username="acme", password=f"${{{VAR}}}"))

    edit_draft(draft, change)
    line = password_line(draft, "ledger")

    pushed = tenantdeck("push", "--draft", str(draft), "--yes", env=env)

    assert pushed.exit_code == exitcodes.ERROR, pushed.output
    assert f"{draft}:{line}" in pushed.output and VAR in pushed.output and "nothing was pushed" in pushed.output
    assert stored_webhook(env, "ledger") is None
    shown = tenantdeck("diff", "--draft", str(draft), env=env)
    assert shown.exit_code == exitcodes.CHANGES and VAR in shown.output, shown.output

    pushed = tenantdeck("push", "--draft", str(draft), "--yes", env={**env, VAR: "Sup3rSecret"})
    assert pushed.exit_code == exitcodes.OK, pushed.output
    doc, password = stored_webhook(env, "ledger") or ({}, None)
    assert (doc.get("useBasicAuth"), password) == (True, "Sup3rSecret")


def test_an_unset_password_the_change_does_not_need_is_left_as_it_is(draft: Path, env: dict[str, str]) -> None:
    """Basic Auth on and a password stored (tenantdeck pushed both): a rename with the variable unset sends no
    password, and says so (today's warning)."""
    line = turn_on_basic_auth(draft)
    assert tenantdeck("push", "--draft", str(draft), "--yes", env={**env, VAR: "Sup3rSecret"}).exit_code == 0

    def rename(d: Any) -> None:
        next(h for h in app_named(d, APP).webhooks if h.id == "audit").name = "Audit trail 2"

    edit_draft(draft, rename)
    pushed = tenantdeck("push", "--draft", str(draft), "--yes", env=env)

    assert pushed.exit_code == exitcodes.OK, pushed.output
    # located and rendered as every problem of the draft is (FILE:LINE:COL: warning:; trial L, L9)
    assert re.search(rf"^{re.escape(str(draft))}:{line}:\d+: warning: apps\[0\]\.webhooks\[1\]\.password: {VAR} is not "
                     "set; this secret is left as it is", pushed.output, re.M), pushed.output
    doc, password = stored_webhook(env, "audit") or ({}, None)
    assert (doc.get("name"), doc.get("useBasicAuth"), password) == ("Audit trail 2", True, "Sup3rSecret")

    def rename_again(d: Any) -> None:
        next(h for h in app_named(d, APP).webhooks if h.id == "audit").name = "Audit trail 3"

    edit_draft(draft, rename_again)
    as_json = tenantdeck("push", "--draft", str(draft), "--yes", "--format", "json", env=env)
    assert as_json.exit_code == exitcodes.OK, as_json.output
    warned = json.loads(as_json.stdout)["result"]["warnings"]  # said before the push ran, and kept in the JSON
    assert any(f":{line}:" in w and f"{VAR} is not set" in w for w in warned), warned
