"""Fixtures of the extension settings form: a draft whose first app manages the settings of four extensions (a
profanity list, data masks with a custom one, FCM push with its private key as a reference, a Giphy key) and whose
second manages none, and helpers that open the form from the Extensions tab as a user does (row, then Enter).

The secrets' variables are set or unset per test (``monkeypatch``); the value of a set one is a marker that a test
asserts never reaches the screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from tenantdeck.models import catalog
from tests.tui.hooks_fixtures import open_tab
from tests.tui.pilot import no_blink, settle

DRAFT = """\
format: 1
apps:
  - name: Acme Support
    region: us
    version: '3'
    extensions:
      enabled: [data-masking, gifs-giphy, profanity-filter, push-notification]
      disabled: []
    extension_settings:
      profanity-filter:
        dropMessage: false
        badwords: [darn, heck]
      data-masking:
        dropMessage: false
        defaultRegexData:
          - {id: '1', name: US phone numbers, regex: '\\d{3}-\\d{3}-\\d{4}', enableFlag: true}
          - {id: '2', name: Emails, regex: '[\\w.]+@[\\w.]+', enableFlag: true}
          - {id: '3', name: SSN, regex: '\\d{3}-\\d{2}-\\d{4}', enableFlag: false}
        customregexData:
          - {id: '4', name: Order numbers, regex: 'ORD-\\d{6}'}
      push-notification:
        version: 2
        pushProvider: 1
        fcmCredentials:
          project_id: acme-chat
          client_email: push@acme-chat.iam.gserviceaccount.com
          private_key: ${TENANTDECK_ACME_SUPPORT_FCM_PRIVATE_KEY}
          private_key_id: 4f1c0ffee
        sendEditMessageNotification: true
      gifs-giphy:
        giphyApiKey: ${TENANTDECK_ACME_SUPPORT_GIPHY_API_KEY}
  - name: Globex
    region: eu
    version: '3'
"""

#: the value of the one secret variable that is set: it must never be on a screen
SECRET_VALUE = "sk-live-DO-NOT-SHOW-0f9e8d"
SET_VAR = "TENANTDECK_ACME_SUPPORT_FCM_PRIVATE_KEY"
UNSET_VAR = "TENANTDECK_ACME_SUPPORT_GIPHY_API_KEY"


@pytest.fixture
def ext_draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The draft in ``tmp_path``; the FCM key's variable set (to :data:`SECRET_VALUE`), Giphy's not."""
    monkeypatch.setenv(SET_VAR, SECRET_VALUE)
    monkeypatch.delenv(UNSET_VAR, raising=False)
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(DRAFT, encoding="utf-8")
    return path


async def open_form(pilot: Pilot[None], ext: str, app_index: int = 0) -> None:
    """The Extensions tab of app ``app_index``, the cursor on ``ext``, Enter: its settings form."""
    await open_tab(pilot, "extensions", app_index)
    table = pilot.app.screen.query_one("#extensions").query_one(DataTable)
    table.move_cursor(row=catalog.EXTENSION_IDS.index(ext))
    table.focus()
    await pilot.pause()
    await pilot.press("enter")
    await settle(pilot)
    no_blink(pilot)
    await pilot.pause()
