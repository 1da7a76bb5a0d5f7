"""The policy gate's promise as a property (issue 33): whatever the draft and the dashboard did, in any order, the
verdict before a push (`diff`'s notes, and the gate's own, with every rule let through so the push runs) is the
verdict `audit` gives right after it.

A hypothesis state machine against the in-process sandbox interleaves draft edits, changes made behind the draft's
back through the service's API, and pushes, with five of docs/policies.md's recipe rules."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from tenantdeck.draft.session import DraftSession
from tenantdeck.policies.checks import audit_target, policies_for
from tenantdeck.policies.gate import gate_for, push_gate
from tenantdeck.sync.remote.engine import PushRefused, PushRequest, plan_draft, prepare_push
from tenantdeck.sync.settle import Choice
from tests.fuzzing import examples
from tests.policies.test_policy_fleet import recipes
from tests.sync.helpers_push import client_for, make_sandbox, run_pull, run_push, target_for

RULES = ("profanity-filter-on", "https-webhooks", "brand-colour", "two-admins", "gold-tier-settings")
APPS = ("Acme Support", "Globex Community", "Initech Field Chat")
COLOURS = ("#03A9F4", "#3366FF", "#FF0000")
URLS = ("https://hooks.example/chat", "http://127.0.0.1:8788/chat")
SETTING = "core.conversations.updateOnCallActivity"
ENV: dict[str, str] = {}


def rules_file() -> str:
    """The recipes' rules file, cut to :data:`RULES` (the SMS rule needs a provider's secret to push)."""
    import yaml

    doc = yaml.safe_load(recipes())
    doc["policies"] = [r for r in doc["policies"] if r["name"] in RULES]
    return yaml.safe_dump(doc, sort_keys=False)


#: each move's arguments
MOVES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "colour": st.fixed_dictionaries({"colour": st.sampled_from(COLOURS)}),
    "hook_url": st.fixed_dictionaries({"name": st.sampled_from(APPS[:2]), "url": st.sampled_from(URLS)}),
    "new_hook": st.fixed_dictionaries({"name": st.sampled_from(APPS[:2]), "url": st.sampled_from(URLS)}),
    "admins": st.fixed_dictionaries({"name": st.sampled_from(APPS), "admins": st.integers(0, 2)}),
    "profanity": st.fixed_dictionaries({"name": st.sampled_from(APPS), "on": st.booleans()}),
    "setting": st.fixed_dictionaries({"name": st.sampled_from(APPS[:2]), "value": st.booleans()}),
}


def key(v: Any) -> tuple[str, str, str, str]:
    from tenantdeck.problems import format_path

    return (v.rule, v.app_name, format_path(v.path), v.found)


class GateVersusAudit(RuleBasedStateMachine):
    """One account, one draft: edits on either side, and after every push the pre-push verdict is the audit's."""

    @initialize()
    def pull(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="gate-"))
        self.sandbox = make_sandbox(self.dir / "db.sqlite3")
        self.target = target_for(self.sandbox)
        self.draft = self.dir / "d.yaml"
        run_pull(self.sandbox, self.draft)
        (self.dir / "d.policies.yaml").write_text(rules_file())
        self.policies = policies_for(self.draft)
        self.hooks = 0
        self.moved = False  #: a move since the last push
        session = DraftSession.open(self.draft)
        for i, app in enumerate(session.data["apps"]):
            if app["name"] in ("Acme Support", "Globex Community"):
                session.set(("apps", i, "labels"), {"tier": "gold"})
        session.save()

    def teardown(self) -> None:
        """The run ends with a push of what is left (a run that moved and never pushed still checks once)."""
        try:
            if getattr(self, "moved", False):
                self.push()
        finally:
            shutil.rmtree(getattr(self, "dir", ""), ignore_errors=True)

    # -- the draft -----------------------------------------------------------------------------------------------

    def _edit(self, name: str, path: tuple[Any, ...], value: Any) -> None:
        session = DraftSession.open(self.draft)
        i = [a["name"] for a in session.data["apps"]].index(name)
        session.set(("apps", i, *path), value)
        session.save()

    def _app(self, name: str) -> dict[str, Any]:
        return next(a for a in DraftSession.open(self.draft).data["apps"] if a["name"] == name)

    def draft_colour(self, colour: str) -> None:
        self._edit("Acme Support", ("widgets", 0, "style", "primary_color"), colour)

    def draft_hook_url(self, name: str, url: str) -> None:
        self._edit(name, ("webhooks", 0, "webhookURL"), url)

    def draft_new_hook(self, name: str, url: str) -> None:
        self.hooks += 1
        hooks = list(self._app(name).get("webhooks") or [])
        self._edit(name, ("webhooks",), [*hooks, {"id": f"new{self.hooks}", "name": f"new hook {self.hooks}",
                                                  "webhookURL": url, "triggers": ["message_sent"]}])

    def draft_admins(self, name: str, admins: int) -> None:
        team = self._app(name).get("team") or {}
        self._edit(name, ("team",), {"admins": [f"a{n}@example.test" for n in range(admins)],
                                     "moderators": list(team.get("moderators") or [])})

    def draft_profanity(self, name: str, on: bool) -> None:
        ext = self._app(name).get("extensions") or {}
        enabled = [e for e in ext.get("enabled") or [] if e != "profanity-filter"]
        disabled = [e for e in ext.get("disabled") or [] if e != "profanity-filter"]
        self._edit(name, ("extensions",), {"enabled": enabled + ["profanity-filter"] * on,
                                           "disabled": disabled + ["profanity-filter"] * (not on)})

    def draft_setting(self, name: str, value: bool) -> None:
        self._edit(name, ("settings", SETTING), value)

    # -- the dashboard (the service's API, behind the draft's back) ----------------------------------------------

    def _dashboard(self, name: str, change: Any) -> None:
        async def go() -> None:
            async with client_for(self.sandbox) as client:
                app = next(a for a in await client.list_apps() if a.name == name)
                await change(client, app.id)

        asyncio.run(go())

    def dashboard_colour(self, colour: str) -> None:
        async def change(client: Any, app_id: str) -> None:
            widget = (await client.list_widgets(app_id))[0]
            style = {**widget.settings["style"], "primary_color": colour}
            await client.update_widget(app_id, widget.widget_id, {**widget.settings, "style": style})

        self._dashboard("Acme Support", change)

    def dashboard_hook_url(self, name: str, url: str) -> None:
        async def change(client: Any, app_id: str) -> None:
            hook = (await client.list_webhooks(app_id))[0]
            body = {k: v for k, v in hook.items() if k not in ("createdAt", "updatedAt", "triggers")}
            await client.update_webhook(app_id, hook["id"], {**body, "webhookURL": url})

        self._dashboard(name, change)

    def dashboard_admins(self, name: str, admins: int) -> None:
        async def change(client: Any, app_id: str) -> None:
            have = [c["email"] for c in await client.list_collaborators(app_id) if c.get("role") == "admin"]
            want = [f"d{n}@example.test" for n in range(admins)]
            gone = [e for e in have if e not in want]
            if want or gone:
                await client.update_team(app_id, admins=want, remove=gone)

        self._dashboard(name, change)

    def dashboard_profanity(self, name: str, on: bool) -> None:
        async def change(client: Any, app_id: str) -> None:
            await client.set_extensions(app_id, **{"enabled" if on else "disabled": ["profanity-filter"]})

        self._dashboard(name, change)

    def dashboard_setting(self, name: str, value: bool) -> None:
        async def change(client: Any, app_id: str) -> None:
            await client.map_settings(app_id, {SETTING: value})

        self._dashboard(name, change)

    # -- the moves: one rule per side, so most runs interleave both sides with pushes ----------------------------

    @rule(data=st.data(), move=st.sampled_from(["colour", "hook_url", "new_hook", "admins", "profanity", "setting"]))
    def edit_the_draft(self, data: st.DataObject, move: str) -> None:
        self.moved = True
        getattr(self, f"draft_{move}")(**data.draw(MOVES[move]))

    @rule(data=st.data(), move=st.sampled_from(["colour", "hook_url", "admins", "profanity", "setting"]))
    def change_the_dashboard(self, data: st.DataObject, move: str) -> None:
        self.moved = True
        getattr(self, f"dashboard_{move}")(**data.draw(MOVES[move]))

    # -- a push, and the promise -----------------------------------------------------------------------------------

    @precondition(lambda self: self.moved)
    @rule()
    def push(self) -> None:
        self.moved = False
        planned = asyncio.run(plan_draft(self.draft, ENV, target=self.target, gate=gate_for(self.draft)))
        assert not isinstance(planned, PushRefused), planned
        shown = sorted((n.extra["rule"], n.app) for n in planned.notes if n.kind == "policy" and "rule" in n.extra)
        request = PushRequest(draft_path=self.draft, gate=push_gate(self.policies), allow_violations=RULES,
                              violation_reason="property test", choice=Choice(mine_all=True), retry_base_delay=0.001)
        prepared = asyncio.run(prepare_push(self.target, request, ENV))
        assert not isinstance(prepared, PushRefused), (prepared.kind, prepared.summary, prepared.lines)
        gate = {key(v) for v in prepared.allowed_violations}
        code, err = run_push(self.sandbox, self.draft, ENV, gate=push_gate(self.policies), allow_violations=RULES,
                             violation_reason="property test", choice=Choice(mine_all=True))
        assert code == 0, err
        audit = asyncio.run(audit_target(self.target, self.draft, self.policies))
        if prepared.plan.operations:  # the gate judges a push that sends something
            assert gate == {key(v) for v in audit.evaluation.violations}
        if not planned.conflicts:  # with a conflict, `diff` shows what a push without --take-mine would not do
            assert shown == sorted((v.rule, v.app_name) for v in audit.evaluation.violations)


GateVersusAudit.TestCase.settings = settings(max_examples=int(os.environ.get("GATE_EXAMPLES", examples(8))),
                                             stateful_step_count=6, deadline=None,
                                             suppress_health_check=[HealthCheck.too_slow])
test_the_verdict_before_a_push_is_the_audit_after_it = GateVersusAudit.TestCase
