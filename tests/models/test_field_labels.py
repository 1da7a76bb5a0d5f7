"""A setting's label has one home, its model field's ``title``: plans, reviews and the JSON Schema all read it."""

from __future__ import annotations

from tenantdeck.models.app import App
from tenantdeck.models.base import field_labels
from tenantdeck.models.sms import SmsSettings
from tenantdeck.models.webhook import WebhookBody
from tenantdeck.sync.kinds import BY_NAME


def test_every_field_a_plan_names_has_a_label_on_its_model() -> None:
    for kind, model, fields in (("sms", SmsSettings, SmsSettings.model_fields),
                                ("webhook", WebhookBody, set(WebhookBody.model_fields) - {"id"}),
                                ("app", App, {"name", "region", "version"})):
        labels = field_labels(model)
        for name in fields:
            assert labels.get(name), f"{model.__name__}.{name} has no title"
            assert BY_NAME[kind].label(name) == labels[name]


def test_the_schema_shows_the_same_labels() -> None:
    schema = SmsSettings.model_json_schema()
    assert schema["properties"]["fromMobileNo"]["title"] == "Sender number"
