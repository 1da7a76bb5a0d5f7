"""Plans: JSON round trip, secret placeholders resolved only at push time, staleness named by field."""

from __future__ import annotations

import asyncio
import copy
import json

import pytest

from tenantdeck.models import Draft
from tenantdeck.sync.compare import compare_all
from tenantdeck.sync.kinds import canonical_app_from_draft
from tenantdeck.sync.placeholders import SecretUnavailable, placeholders_in, resolve_payload
from tenantdeck.sync.plan import Plan, build_plan
from tenantdeck.sync.remote.push import stale_resources
from tests.models import factories

KEY = b"p" * 32


def setup(password: str = "${HOOK_PASSWORD}") -> tuple[Draft, dict, dict]:
    data = factories.draft(factories.app("Acme", webhooks=[factories.webhook(password=password)]))
    data["apps"][0]["id"] = "a1"
    data["apps"][0]["widgets"][0]["id"] = "w1"
    draft = Draft.model_validate(data)
    base = canonical_app_from_draft(draft, 0, secret_key=KEY, env={"HOOK_PASSWORD": "old"})
    new = canonical_app_from_draft(draft, 0, secret_key=KEY, env={"HOOK_PASSWORD": "brandnew"})
    return draft, base, new


def test_plan_round_trips_through_json() -> None:
    draft, base, new = setup()
    new["widgets"]["w1"]["main"]["send_voice_notes"] = True
    plan = build_plan(compare_all([new], {"a1": base}, {"a1": copy.deepcopy(base)}), draft, draft_path="/x.yaml")
    doc = json.loads(json.dumps(plan.to_json()))
    again = Plan.from_json(doc)
    assert again.to_json() == plan.to_json()
    assert again.plan_hash() == plan.plan_hash() and len(plan.plan_hash()) == 16
    with pytest.raises(ValueError, match="format_version"):
        Plan.from_json({**doc, "format_version": 99})


def test_placeholders_resolve_from_env_or_the_draft_and_name_what_is_missing() -> None:
    draft, base, new = setup()
    plan = build_plan(compare_all([new], {"a1": base}, {"a1": copy.deepcopy(base)}), draft)
    (op,) = plan.operations
    (spec,) = placeholders_in(op.payload)
    assert spec["var"] == "HOOK_PASSWORD" and spec["path"] == "apps[0].webhooks[0].password"
    sent = asyncio.run(resolve_payload(op.payload, draft=draft, env={"HOOK_PASSWORD": "brandnew"}, app_id="a1"))
    assert sent["password"] == "brandnew"
    with pytest.raises(SecretUnavailable, match=r"HOOK_PASSWORD is not set \(needed for apps\[0\]"):
        asyncio.run(resolve_payload(op.payload, draft=draft, env={}, app_id="a1"))

    literal, lbase, lnew = setup(password="LiteralPw9")
    lbase["webhooks"]["hook1"]["password"] = {"fingerprint": "hmac-sha256:old"}
    plan = build_plan(compare_all([lnew], {"a1": lbase}, {"a1": copy.deepcopy(lbase)}), literal)
    assert "LiteralPw9" not in json.dumps(plan.to_json())
    sent = asyncio.run(resolve_payload(plan.operations[0].payload, draft=literal, env={}, app_id="a1"))
    assert sent["password"] == "LiteralPw9"


def test_stale_plan_names_the_resource_and_the_field() -> None:
    draft, base, _ = setup()
    new = copy.deepcopy(base)
    new["widgets"]["w1"]["main"]["send_voice_notes"] = True
    plan = build_plan(compare_all([new], {"a1": base}, {"a1": copy.deepcopy(base)}), draft)
    assert stale_resources(plan, {"a1": base}) == []
    moved = copy.deepcopy(base)
    moved["widgets"]["w1"]["style"]["custom_css"] = "body{}"
    (stale,) = stale_resources(plan, {"a1": moved})
    assert stale.resource == 'widget "Acme support" (w1)'
    assert stale.fields == ["Custom CSS (style.custom_css)"]
    assert [s.fields for s in stale_resources(plan, {})] == [["the app is gone"]]
