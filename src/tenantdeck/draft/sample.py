"""The commented sample draft written by ``tenantdeck init``.

It is text, not a dumped model, because its value is in the comments. The preset's ``main`` block is generated from
:data:`tenantdeck.models.catalog.MAIN_TOGGLES` (every toggle written out, with its label as a comment) so the
sample can never lag behind the models; a test checks that it validates without problems.
"""

from __future__ import annotations

import json

from tenantdeck.models import catalog, extension_catalog

_HEAD = """\
{modeline}
# tenantdeck draft: the configuration of a multi-tenant chat account, kept in git and pushed with
#   tenantdeck validate   check this file offline (every problem with file, line and key)
#   tenantdeck diff       compare it with the live service
#   tenantdeck push       apply the differences
# Secrets are never written here: use ${{ENV_VAR}} references and set the variables where you push.
# Quote text that YAML could read as something else: version: "3", name: 'no', id: '0777'.
format: 1

# Named widget settings. A widget that `extends` a preset only writes what differs, so one edit here rolls out to
# every app that uses it.
presets:
  support:
    name: Support chat
    version: v2
    style:
      docked_layout_icon_background: '#03a9f4'
      docked_layout_icon_close: {asset}/v2/resources/chat_close.svg
      docked_layout_icon_open: {asset}/v2/resources/chat_bubble.svg
      primary_color: '#03A9F4'
      foreground_color: '#000000'
      background_color: '#FFFFFF'
      override_system_background_colors: true
    sidebar:
      chats: true
      users: true
      groups: true
      calls: false
      recent_chat_listing: all_chats      # all_chats | users | groups
      user_listing: all_users             # all_users | friends | none
      sidebar_navigation_sequence: [chats, users, groups, calls, settings]   # reorder or omit, never add
      start_a_new_conversation: all_chats
      group_listing: public_and_password_protected_groups
    main:
{toggles}

apps:
  # An app that exists on the service has an `id`; without one it is created on push.
  - name: Acme Support
    region: eu                 # us | eu | in
    version: "3"               # quoted: a bare 3 is a number
    extensions:
      enabled: [polls, reactions, stickers, profanity-filter]
      disabled: []
    widgets:
      - extends: support       # everything from presets.support ...
        name: Acme help desk   # ... except these overrides
        main:
          send_gifs: true
          share_location: false
    # Each extension's settings by its id, with the API's field names; `tenantdeck schema` lists every field.
    extension_settings:
      profanity-filter:
{profanity}

  - name: Globex
    region: us
    version: "3"
    extensions:
      enabled: [sms-notification]
      disabled: []
    sms:
      fromMobileNo: "+12345678"
      messageDelay: 60         # seconds a message may stay unread before an SMS goes out
      twilioAccountSid: ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
      twilioAuthToken: ${{GLOBEX_TWILIO_TOKEN}}
      websiteURL: www.globex.example
    webhooks:
      - id: globexevents
        name: Globex events
        webhookURL: https://hooks.globex.example/tenantdeck
        useBasicAuth: true
        username: tenantdeck
        password: ${{GLOBEX_WEBHOOK_PASSWORD}}   # set GLOBEX_WEBHOOK_PASSWORD where you push
        enabled: true
        retryOnFailure: true
        triggers: [message_sent, group_created, group_member_joined]
"""

#: toggles switched on in the sample preset beyond the catalog defaults (their extensions are enabled above)
_SAMPLE_ON = {
    "allow_creating_polls",
    "allow_message_reactions",
    "allow_moderator_to_delete_member_messages",
    "allow_promote_demote_members",
    "show_typing_indicators",
}


def _toggle_lines() -> str:
    width = max(len(t.key) for t in catalog.MAIN_TOGGLES) + len("      : false")
    lines: list[str] = []
    for t in catalog.MAIN_TOGGLES:
        value = True if t.key in _SAMPLE_ON else bool(t.default)
        entry = f"      {t.key}: {'true' if value else 'false'}"
        note = t.label + (f" (needs the {t.extension} extension)" if t.extension else "")
        lines.append(f"{entry.ljust(width)}  # {note}")
    return "\n".join(lines)


def _extension_lines(ext_id: str, values: dict[str, object]) -> str:
    """One extension's settings in the sample, each field with its catalog label as a comment."""
    spec = extension_catalog.BY_ID[ext_id]
    rows = []
    for setting in spec.settings:
        value = values.get(setting.key, extension_catalog.sample_value(setting))
        text = json.dumps(value) if not isinstance(value, bool) else ("true" if value else "false")
        rows.append((f"        {setting.key}: {text}", setting.description or setting.label))
    width = max(len(entry) for entry, _ in rows)
    return "\n".join(f"{entry.ljust(width)}  # {note}" for entry, note in rows)


def modeline(schema_ref: str) -> str:
    """The first line that makes yaml-language-server (VS Code, Neovim, Helix...) validate against the schema."""
    return f"# yaml-language-server: $schema={schema_ref}"


def sample_text(schema_ref: str) -> str:
    """The full sample draft, its first line pointing editors at the JSON Schema ``schema_ref``."""
    return _HEAD.format(modeline=modeline(schema_ref), asset=catalog.ASSET_URL, toggles=_toggle_lines(),
                        profanity=_extension_lines("profanity-filter", {"badwords": ["darn", "heck"]}))
