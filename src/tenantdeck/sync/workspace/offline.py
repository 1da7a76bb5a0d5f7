"""Each app's change state against the base snapshot, from in-memory draft data: what the editor's Apps list shows.

The same three-way comparison ``diff --offline`` makes (live = base), one app at a time, so an app whose data
does not validate yet is reported as ``unknown`` instead of hiding every other app's state. No network, and no
file is written: without a workspace key there can be no base, so every app is new or has no base.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: what the editor shows for each state
STATES = ("new", "modified", "in sync", "no base", "unknown")


def app_states(data: Any, draft_path: Path, *, env: Mapping[str, str]) -> dict[str, str]:
    """``{"apps[3]": state}`` for every app of ``data`` (the parsed draft)."""
    from pydantic import ValidationError

    from tenantdeck.models import App, Draft, WidgetSettings
    from tenantdeck.sync.canonical import canonical_app_from_draft
    from tenantdeck.sync.compare import compare_app
    from tenantdeck.sync.workspace.state import Workspace, WorkspaceError

    apps = data.get("apps") if isinstance(data, dict) else None
    if not isinstance(apps, list):
        return {}
    workspace = Workspace(draft_path)
    try:
        key = workspace._read_key() if workspace.key_path.exists() else b"\0" * 32
        base = workspace.load_base() if workspace.key_path.exists() else {}
    except (OSError, WorkspaceError):
        key, base = b"\0" * 32, {}
    presets: dict[str, Any] = {}
    for name, preset in (data.get("presets") or {}).items() if isinstance(data.get("presets"), dict) else ():
        try:
            presets[str(name)] = WidgetSettings.model_validate(preset)
        except ValidationError:
            continue
    out: dict[str, str] = {}
    for i, app_data in enumerate(apps):
        where = f"apps[{i}]"
        app_id = app_data.get("id") if isinstance(app_data, dict) else None
        if not app_id and isinstance(app_data, dict):
            out[where] = "new"
            continue
        if app_id not in base:
            out[where] = "no base"
            continue
        try:
            app = App.model_validate(app_data)
            draft = Draft.model_construct(format=1, presets=presets, apps=[app])
            canonical = canonical_app_from_draft(draft, 0, secret_key=key, env=env)
        except (ValidationError, KeyError, TypeError, ValueError):
            out[where] = "unknown"
            continue
        diff = compare_app(canonical, base[app_id], base[app_id], offline=True)
        out[where] = "in sync" if diff.status in ("in_sync", "drift") else "modified"
    return out
