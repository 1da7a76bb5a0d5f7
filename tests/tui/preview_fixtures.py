"""A draft for the preview's tests: one preset in distinctive colours and an app whose widget extends it.

Written out here (not the ``init`` sample) so that a change to the sample does not redraw the preview's snapshots.
The ``main`` block lists every toggle of the catalog: its default, or on where the spec has no default.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tenantdeck.models import catalog

ON = {"send_gifs", "send_voice_notes", "allow_mention_members", "enable_replying_to_messages"}


def _main(indent: str) -> str:
    lines = []
    for t in catalog.MAIN_TOGGLES:
        value = True if t.key in ON or t.default is None else t.default
        lines.append(f"{indent}{t.key}: {'true' if value else 'false'}")
    return "\n".join(lines)


PREVIEW_DRAFT = f"""\
format: 1
presets:
  brand:
    name: Brand chat
    version: v2
    style:
      docked_layout_icon_background: '#E91E63'
      docked_layout_icon_close: https://cdn.example.com/brand/launcher_closed.svg
      docked_layout_icon_open: https://cdn.example.com/brand/launcher_open.svg
      primary_color: '#6A1B9A'
      foreground_color: '#263238'
      background_color: '#FFF8E1'
      override_system_background_colors: true
    sidebar:
      chats: true
      users: true
      groups: true
      calls: false
      recent_chat_listing: all_chats
      user_listing: friends
      sidebar_navigation_sequence: [groups, chats, users, calls, settings]
      start_a_new_conversation: users
      group_listing: public_groups
    main:
{_main("      ")}

apps:
  - name: Preview Co
    region: eu
    version: "3"
    extensions:
      enabled: [polls, reactions, stickers, document, whiteboard, message-translation]
      disabled: []
    widgets:
      - extends: brand
        name: Preview help desk   # a hand comment that a save keeps
        style:
          primary_color: '#00695C'
        main:
          send_gifs: true
"""


def write_preview_draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str = PREVIEW_DRAFT) -> Path:
    """The draft in ``tmp_path``, with the config and data directories isolated there too."""
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    path = tmp_path / "preview.yaml"
    path.write_text(text, encoding="utf-8")
    return path
