"""The legacy SMS extension's settings: one object per app, its Twilio auth token a secret (fingerprinted)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tenantdeck.models import catalog
from tenantdeck.models.base import field_labels
from tenantdeck.models.secrets import secret_fields
from tenantdeck.models.sms import SmsSettings
from tenantdeck.sync.canonical import SMS_FIELDS, SMS_SECRETS, number, secret_state_of_draft, secret_state_of_value
from tenantdeck.sync.kinds.base import DraftEdit, Kind, Planner, field_path, leaf_edit, unflatten, with_changes
from tenantdeck.sync.types import UNKNOWN, FieldChange, StepKind

if TYPE_CHECKING:
    from tenantdeck.models import App, Draft
    from tenantdeck.sync.types import Conflict, RemoteAppBundle, ResourceDiff, Step


class SmsKind(Kind):
    name = "sms"
    section = "sms"
    reads = ("sms",)
    empty = {"sms": None}
    secret_fields = frozenset(secret_fields(SmsSettings))
    secret_path = "sms.{path}"
    steps = (StepKind("store_sms", "store", "create"), StepKind("update_sms", "update", "update"),
             StepKind("delete_sms", "delete", "delete"))
    labels = field_labels(SmsSettings)

    def draft_edits(self, index: int, app: Mapping[str, Any], conflict: Conflict) -> list[DraftEdit]:
        if not isinstance(app.get("sms"), dict):
            return []
        return [leaf_edit(("apps", index, "sms", *field_path(conflict)), conflict.live)]

    def from_draft(self, draft: Draft, app: App, *, secret_key: bytes, env: Mapping[str, str]) -> dict[str, Any]:
        if app.sms is None:
            return {"sms": None}
        sms = {key: number(getattr(app.sms, key)) for key in SMS_FIELDS}
        for name in SMS_SECRETS:
            sms[name] = secret_state_of_draft(getattr(app.sms, name), secret_key=secret_key, env=env)
        return {"sms": sms}

    def from_remote(self, remote: RemoteAppBundle, *, secret_key: bytes) -> dict[str, Any]:
        """The SMS API reports its token: fingerprinted here, never kept."""
        sms = remote.sms
        if sms is None:
            return {"sms": None}
        out: dict[str, Any] = {}
        for key in SMS_FIELDS:
            value = sms.get(key)
            if value is None:
                value = catalog.SMS_DEFAULTS.get(key)
            out[key] = dict(UNKNOWN) if value is None else number(value)
        for name in SMS_SECRETS:
            token = sms.get(name)
            out[name] = (secret_state_of_value(token, secret_key=secret_key) if isinstance(token, str) and token
                         else dict(UNKNOWN))
        return {"sms": out}

    def title(self, rid: str, name: str | None) -> str:
        return "SMS settings"

    def plan(self, planner: Planner, res: ResourceDiff) -> None:
        if res.status == "create":
            leaves = planner.secretise(res, res.draft or {}, local_paths=set(res.draft or {}))
            planner.step("store_sms", res, changes=planner.changes(res), payload={"settings": unflatten(leaves)})
        elif res.status == "update":
            local = {leaf.path for leaf in res.by_state("local")}
            leaves = planner.secretise(res, planner.merged(res), local_paths=local)
            planner.step("update_sms", res, changes=planner.changes(res), payload={"settings": unflatten(leaves)},
                         unchanged=res.unchanged)
        elif res.status == "delete":
            if planner.allow_delete:
                planner.step("delete_sms", res,
                             changes=[FieldChange("", "SMS settings", "set", "(deleted)", "local")])
            else:
                planner.skip_delete("SMS settings")

    def apply(self, base: dict[str, Any] | None, step: Step, sent: Any,
              result: Mapping[str, Any]) -> dict[str, Any] | None:
        assert base is not None
        if step.kind == "store_sms":
            base["sms"] = sent["settings"]
        elif step.kind == "update_sms":
            base["sms"] = with_changes(base.get("sms"), step, sent["settings"])
        else:
            base["sms"] = None
        return base


KIND = SmsKind()
