"""Webhooks: ``{id: fields}`` (the id is ours to choose). Several fields are write-only (never reported by the
service, ``catalog.WEBHOOK_WRITE_ONLY``) and the password is a secret; a field the draft leaves out is left as it is
on the service. Each webhook's trigger set is a kind of its own (:mod:`.triggers`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tenantdeck.models import catalog
from tenantdeck.models.base import field_labels
from tenantdeck.models.secrets import secret_fields
from tenantdeck.models.webhook import WebhookBody
from tenantdeck.rules import webhook_id_breaks_rule, webhook_name_breaks_rule
from tenantdeck.sync.canonical import (
    WEBHOOK_FIELDS,
    WEBHOOK_REQUIRED,
    WEBHOOK_SECRETS,
    secret_state_of_draft,
    secret_state_of_value,
)
from tenantdeck.sync.kinds import triggers
from tenantdeck.sync.kinds.base import (
    DraftEdit,
    Kind,
    Planner,
    field_path,
    leaf_edit,
    unflatten,
    webhook_index,
    with_changes,
)
from tenantdeck.sync.types import UNKNOWN, FieldChange, StepKind, is_unknown, secret_word

if TYPE_CHECKING:
    from tenantdeck.models import App, Draft
    from tenantdeck.sync.types import Conflict, RemoteAppBundle, ResourceDiff, Step


class WebhookKind(Kind):
    name = "webhook"
    section = "webhooks"
    reads = ("webhooks",)
    empty = {"webhooks": {}}
    secret_fields = frozenset(secret_fields(WebhookBody))
    secret_path = "webhooks.{rid}.{path}"
    secrets_from_draft = True  # the service never reports a webhook's password: only the draft can say it
    #: what the service fills in when a create leaves these out (a pull after a push does not call them changes)
    defaults = dict(catalog.WEBHOOK_CREATE_DEFAULTS)
    steps = (StepKind("create_webhook", "create", "create"), StepKind("update_webhook", "update", "update"),
             StepKind("delete_webhook", "delete", "delete"))
    labels = field_labels(WebhookBody)

    def draft_edits(self, index: int, app: Mapping[str, Any], conflict: Conflict) -> list[DraftEdit]:
        k = webhook_index(app, conflict.rid)
        return [] if k is None else [leaf_edit(("apps", index, "webhooks", k, *field_path(conflict)), conflict.live)]

    def from_draft(self, draft: Draft, app: App, *, secret_key: bytes, env: Mapping[str, str]) -> dict[str, Any]:
        """Only what the draft writes: a model default for a field the draft leaves out is not the admin's wish,
        and for a write-only field it would overwrite a value nobody can see (a rename switching Basic Auth off)."""
        hooks: dict[str, Any] = {}
        for hook in app.webhooks:
            written = hook.model_fields_set
            out: dict[str, Any] = {key: getattr(hook, key) for key in WEBHOOK_FIELDS
                                   if key in WEBHOOK_REQUIRED or key in written}
            for name in WEBHOOK_SECRETS:
                out[name] = secret_state_of_draft(getattr(hook, name), secret_key=secret_key, env=env)
            out["triggers"] = triggers.draft_triggers(hook)
            hooks[hook.id] = out
        return {"webhooks": hooks}

    def from_remote(self, remote: RemoteAppBundle, *, secret_key: bytes) -> dict[str, Any]:
        hooks: dict[str, Any] = {}
        for hook in remote.webhooks:
            out: dict[str, Any] = {key: hook[key] if key in hook else dict(UNKNOWN) for key in WEBHOOK_FIELDS}
            for name in WEBHOOK_SECRETS:
                if name not in hook:
                    out[name] = dict(UNKNOWN)  # the API never returns it; only its absence on our side is known
                elif isinstance(hook[name], str) and hook[name]:
                    out[name] = secret_state_of_value(hook[name], secret_key=secret_key)
                else:
                    out[name] = None
            out["triggers"] = triggers.remote_triggers(hook)
            hooks[str(hook["id"])] = out
        return {"webhooks": hooks}

    def title(self, rid: str, name: str | None) -> str:
        return f'webhook "{name or rid}" ({rid})'

    def absent_is_unchanged(self, path: str) -> bool:
        """Every field: several are write-only (never reported), and an update that omits a field keeps it."""
        return True

    def resources(self, app: Mapping[str, Any]) -> dict[str, Any]:
        return {hid: {k: v for k, v in hook.items() if k not in ("triggers", "id")}
                for hid, hook in (app.get("webhooks") or {}).items()}

    def put(self, app: dict[str, Any], rid: str, leaves: Mapping[str, Any]) -> None:
        hooks = dict(app.get("webhooks") or {})
        old = hooks.get(rid) or {}
        kept = {k: old[k] for k in ("id", "triggers") if k in old}
        hooks[rid] = {**unflatten(leaves), **kept}
        app["webhooks"] = hooks

    def plan(self, planner: Planner, res: ResourceDiff) -> None:
        if res.status == "create":
            why = webhook_id_breaks_rule(res.rid) or webhook_name_breaks_rule(str((res.draft or {}).get("name", "")))
            if why is not None:
                planner.refused.add(res.rid)
                planner.refuse(res, f"{why}; a new webhook must follow it (rename it in the draft)")
                return
            leaves = planner.secretise(res, res.draft or {}, local_paths=set(res.draft or {}))
            step = planner.step("create_webhook", res, res.rid, changes=planner.changes(res),
                                payload={"id": res.rid, **catalog.WEBHOOK_CREATE_DEFAULTS, **unflatten(leaves)})
            planner.hook_keys[res.rid] = step.key
        elif res.status == "update":
            local = {leaf.path for leaf in res.by_state("local")}
            if "name" in local and (why := webhook_name_breaks_rule(str((res.draft or {}).get("name", "")))):
                planner.refuse(res, why)
                return
            merged = planner.merged(res)
            for key in [k for k, v in merged.items() if k not in local]:
                if is_unknown(merged[key]) or key in catalog.WEBHOOK_WRITE_ONLY:
                    del merged[key]  # not sent: the service keeps what it has (an update keeps omitted fields)
            changes, unchanged = planner.changes(res), res.unchanged
            if password_needed(res, local):
                # sent, so the push's check of the variables it sends (engine.missing_secrets) refuses it unset,
                # and shown, so the plan says what the push sends
                merged["password"] = (res.draft or {})["password"]
                local = local | {"password"}
                changes.append(FieldChange("password", self.labels.get("password", "password"),
                                           secret_word((res.live or {}).get("password")), "will be set", "local",
                                           True, planner.app.name, res.title))
                unchanged -= 1
            leaves = planner.secretise(res, merged, local_paths=local)
            step = planner.step("update_webhook", res, res.rid, changes=changes,
                                payload=unflatten(leaves), unchanged=unchanged)
            planner.hook_keys[res.rid] = step.key
        elif res.status == "delete":
            if planner.allow_delete:
                planner.step("delete_webhook", res, res.rid,
                             changes=[FieldChange("", res.title, "present", "(deleted)", "local")])
            else:
                planner.skip_delete(res.title)

    def apply(self, base: dict[str, Any] | None, step: Step, sent: Any,
              result: Mapping[str, Any]) -> dict[str, Any] | None:
        assert base is not None
        hooks = dict(base.get("webhooks") or {})
        if step.kind == "delete_webhook":
            base["webhooks"] = {k: v for k, v in hooks.items() if k != step.rid}
            return base
        old = hooks.get(step.rid) or {}
        body = {k: v for k, v in sent.items() if k != "id"}
        hook = body if step.kind == "create_webhook" else with_changes(
            {k: v for k, v in old.items() if k != "triggers"}, step, body)
        for name in sorted(self.secret_fields):
            if name not in body:
                hook[name] = old.get(name)  # not sent: the service kept it
        hook["triggers"] = list(old.get("triggers") or []) if isinstance(old.get("triggers"), list) else []
        hooks[step.rid] = hook
        base["webhooks"] = hooks
        return base


def password_needed(res: ResourceDiff, local: set[str]) -> bool:
    """Whether this webhook update must send the draft's password although it did not change: the update turns
    Basic Auth on (``useBasicAuth`` true is among the ``local`` changes) and no password is known to be stored.

    The service keeps a password an update leaves out, and answers 422 "useBasicAuth is true and no password is
    stored" when there is none to keep (facts §7: the password is write-only, so only what tenantdeck last pushed,
    carried in the base, says one is stored; "not reported" counts as none). Left out, such an update fails at the
    service after earlier writes, on every retry; sent, a ``${VAR}`` password that is unset refuses the push before
    its first write, at the password's line. Only a password the draft writes counts (the model requires one with
    Basic Auth on), not one a promotion made unknown (secrets are never promoted: production keeps its own); with
    Basic Auth already on, or a password stored, an unset variable is left as it is.
    """
    draft = res.draft or {}
    written = draft.get("password")
    if ("password" in local or "useBasicAuth" not in local or draft.get("useBasicAuth") is not True
            or not isinstance(written, Mapping) or not ("ref" in written or "fingerprint" in written)):
        return False
    return not any(_stored(side.get("password")) for side in (res.live or {}, res.base or {}))


def _stored(state: Any) -> bool:
    """A password state that says the service holds one: a fingerprint (not None, "not reported" or a ref)."""
    return isinstance(state, Mapping) and "fingerprint" in state


KIND = WebhookKind()
