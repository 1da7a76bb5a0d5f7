"""Issue 9: which fields are secret is said once, on the models (``Secret``); everything else derives from it."""

from __future__ import annotations

import ast
from pathlib import Path

import tenantdeck
from tenantdeck.draft.pydantic_problems import is_secret
from tenantdeck.models import Draft, SmsSettings, WebhookBody
from tenantdeck.models.app import app_secret_fields, secret_field_of
from tenantdeck.models.secrets import secret_env_name
from tenantdeck.sandbox.validation import SECRET_FIELDS
from tenantdeck.sync import canonical
from tenantdeck.sync.kinds import BY_NAME

SRC = Path(tenantdeck.__file__).parent


def test_every_secret_field_is_listed_once() -> None:
    fields = [(f.section, f.name, f.model.__name__, f.keyed) for f in app_secret_fields()]
    assert fields[:2] == [("sms", "twilioAuthToken", "SmsNotificationSettings", False),
                          ("webhooks", "password", "Webhook", True)]
    paths = [f.field("w1") for f in app_secret_fields()]
    assert len(set(paths)) == len(paths)
    # every extension setting the catalog marks secret, nested ones included, and nothing else
    from tenantdeck.models.extension_catalog import BY_ID, DRAFT_EXTENSIONS

    def marked(prefix: str, settings: tuple) -> list[str]:
        out = []
        for s in settings:
            if s.secret:
                out.append(f"{prefix}.{s.key}")
            if s.type == "object":
                out.extend(marked(f"{prefix}.{s.key}", s.fields))
        return out

    expected = {p for ext in DRAFT_EXTENSIONS for p in marked(f"extension_settings.{ext}", BY_ID[ext].settings)}
    assert set(paths[2:]) == expected
    assert "extension_settings.push-notification.fcmCredentials.private_key" in expected
    assert secret_field_of("extension_settings.gifs-giphy.giphyApiKey") is not None


def test_the_rest_derives_from_the_marks() -> None:
    assert BY_NAME["sms"].secret_fields == {"twilioAuthToken"}
    assert BY_NAME["webhook"].secret_fields == {"password"}
    assert {k.name for k in BY_NAME.values() if k.secret_fields} == {"sms", "webhook", "extension_settings"}
    assert BY_NAME["extension_settings"].secret_fields >= {"giphyApiKey", "fcmCredentials.private_key"}
    assert set(SECRET_FIELDS) == {"twilioAuthToken", "password"}
    assert "password" not in canonical.WEBHOOK_FIELDS and "twilioAuthToken" not in canonical.SMS_FIELDS
    assert set(canonical.WEBHOOK_FIELDS) == set(WebhookBody.model_fields) - {"id", "password"}
    assert set(canonical.SMS_FIELDS) == set(SmsSettings.model_fields) - {"twilioAuthToken"}
    for field in app_secret_fields():
        rid = "hook1" if field.keyed else ""
        assert secret_field_of(field.field(rid)) == (field, rid)
        path = ("apps", 0, field.section, *((0,) if field.keyed else ()), field.name)
        assert is_secret(Draft, path), path
    assert secret_field_of("webhooks.hook1.username") is None and secret_field_of("sms.fromMobileNo") is None
    assert not is_secret(Draft, ("apps", 0, "webhooks", 0, "username"))
    assert not is_secret(Draft, ("apps", 0, "sms", "twilioAccountSid"))


def test_derived_reference_names_end_with_the_marks_env_name() -> None:
    """pull and the SMS and webhook forms derive ``${TENANTDECK_<APP>_..._<ENV_NAME>}`` from the mark alone."""
    from tenantdeck.draft.sms_view import token_reference
    from tenantdeck.draft.webhook_view import password_reference

    assert secret_env_name(SmsSettings, "twilioAuthToken") == "TWILIO_AUTH_TOKEN"
    assert token_reference("Acme Inc.") == "${TENANTDECK_ACME_INC_TWILIO_AUTH_TOKEN}"
    assert password_reference("Acme", "hook-1") == "${TENANTDECK_ACME_HOOK_1_PASSWORD}"
    for module in ("sync/remote_to_draft.py", "draft/sms_view.py", "draft/webhook_view.py"):
        text = (SRC / module).read_text(encoding="utf-8")
        assert '"TWILIO_AUTH_TOKEN"' not in text and "'PASSWORD'" not in text and '"PASSWORD"' not in text, module


def test_no_module_spells_a_secret_field_out() -> None:
    """The modules that used to list the secret fields by name (placeholders, preflight, the push, the draft's
    messages, canonical) hold no such string any more: a new secret field needs only its mark. (The sandbox's
    store keeps a webhook's password in a column of its own: that is the service's storage, not a list of secrets.)"""
    names = {f.name for f in app_secret_fields()} | {f.field() for f in app_secret_fields() if not f.keyed}
    for module in ("sync/placeholders.py", "sync/preflight.py", "sync/remote/push.py", "draft/pydantic_problems.py",
                   "sync/canonical.py", "rules.py"):
        tree = ast.parse((SRC / module).read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                      and n.body and isinstance(n.body[0], ast.Expr)}
        strings = {n.value for n in ast.walk(tree)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings}
        assert not strings & names, f"{module} spells out {strings & names}"
