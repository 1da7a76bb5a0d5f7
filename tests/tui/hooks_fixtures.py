"""Fixtures of the Extensions, SMS, Webhooks and Team tabs: a draft shaped like a pull of the sandbox (write-only
webhook fields left out, with pull's comment; an id the service holds outside the documented rule; a trigger the
catalog lacks; a team; two app settings, one a list), and helpers that open the app on one of these tabs."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from tenantdeck.draft.sample import sample_text
from tests.tui.pilot import no_blink

#: the sample's complete ``support`` preset (polls and reactions on), then apps as a pull writes them
PRESETS = "presets:" + sample_text("x").split("\npresets:", 1)[1].split("\napps:", 1)[0].rstrip() + "\n"
DRAFT = "format: 1\n" + PRESETS + """\
apps:
  - id: c32596f5f4c13108
    name: Acme Support
    region: us
    version: '3'
    extensions:
      enabled: [polls, reactions, sms-notification]  # hand comment kept
      disabled: [stickers]
    widgets:
      - extends: support
        name: Support widget
        main:
          allow_message_reactions: true
    sms:
      fromMobileNo: '+15005550006'
      messageDelay: 60   # seconds
      twilioAccountSid: ACsandbox00000000000000000000000000
      twilioAuthToken: ${TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN}
      websiteURL: https://support.example.com
    team:
      admins: [zoe@acme.example]
      moderators: [raj@acme.example]
    settings:
      core.conversations.updateOnReplies: false
      core.notifications.push.advanced.included: [preferences, templates]
    webhooks:
      - id: orders  # tenantdeck: not reported by the service: useBasicAuth, username, retryOnFailure, password unknown (left out, so left as they are)
        name: Order events
        webhookURL: https://hooks.acme.example/chat/orders
        enabled: true
        triggers: [group_member_joined, message_sent]
      - id: test_webhook201
        name: Audit trail
        webhookURL: https://audit.acme.example/ingest
        useBasicAuth: true
        username: auditor
        password: ${AUDIT_PASSWORD}
        enabled: false
        retryOnFailure: true
        triggers: [call_initiated, legacy_trigger]
  - name: Globex
    region: eu
    version: '3'
"""  # noqa: E501


@pytest.fixture
def draft_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The draft copied into ``tmp_path``, config and data directories isolated, and no password variable set."""
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("AUDIT_PASSWORD", raising=False)
    monkeypatch.delenv("CRM_PASSWORD", raising=False)
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(DRAFT, encoding="utf-8")
    return path


async def open_tab(pilot: Pilot[None], tab: str, app_index: int = 0) -> None:
    """Wait for validation, open app ``app_index`` on ``tab`` and focus the tab's first focusable widget."""
    app = pilot.app
    await app.workers.wait_for_complete()
    await pilot.pause()
    app.open_app(app_index, tab)  # type: ignore[attr-defined]
    await pilot.pause()
    await pilot.pause()
    pane = app.screen.query_one(f"#{tab}")
    focusable = [w for w in pane.query("*") if w.focusable and w.display]
    if focusable:
        focusable[0].focus()
    no_blink(pilot)
    await pilot.pause()


async def type_text(pilot: Pilot[None], text: str) -> None:
    await pilot.press(*["space" if c == " " else c for c in text])
