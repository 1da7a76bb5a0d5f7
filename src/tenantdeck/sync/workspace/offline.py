"""Each app's change state against the base snapshot, from in-memory draft data: what the editor's Apps list shows.

The same three-way comparison ``diff --offline`` makes (live = base), one app at a time, so an app whose data
does not validate yet is reported as ``unknown`` instead of hiding every other app's state. No network, and no
file is written: without a workspace key there can be no base, so every app is new or has no base.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

#: what the editor shows for each state
STATES = ("new", "modified", "in sync", "no base", "unknown")


def app_states(data: Any, draft_path: Path, *, env: Mapping[str, str]) -> dict[str, str]:
    """``{"apps[3]": state}`` for every app of ``data`` (the parsed draft)."""
    return AppStates(draft_path).compute(data, env=env)


class AppStates:
    """Each app's change state, kept between calls: an editor recomputes only the apps an edit touched.

    A bulk edit of 5,000 apps must refresh the Apps list's states in well under a second. Reading the base
    snapshot (one JSON file per app) costs about as much as comparing every app, so it is kept in memory and read
    again only when the base directory changes (a pull or push replaces its files); comparing an app whose
    canonical state equals its base is skipped (offline, live is the base: nothing can differ).
    """

    def __init__(self, draft_path: Path) -> None:
        self.draft_path = draft_path
        self._stamp: tuple[int, int] | None = None
        self._key = b"\0" * 32
        self._base: dict[str, dict[str, Any]] = {}
        self.states: dict[str, str] = {}

    def _load(self) -> bool:
        """Read the key and base again if the workspace changed; True when it did (every state is then stale)."""
        from tenantdeck.sync.workspace.state import Workspace, WorkspaceError

        workspace = Workspace(self.draft_path)
        try:
            stamp = (workspace.base_dir.stat().st_mtime_ns, workspace.key_path.stat().st_mtime_ns)
        except OSError:
            stamp = None
        if stamp is not None and stamp == self._stamp:
            return False
        self._stamp = stamp
        try:
            self._key = workspace._read_key() if workspace.key_path.exists() else b"\0" * 32
            self._base = workspace.load_base() if workspace.key_path.exists() else {}
        except (OSError, WorkspaceError):
            self._key, self._base = b"\0" * 32, {}
        return True

    def last_read(self, app_id: str) -> dict[str, Any] | None:
        """The app as the service had it at the last pull or push (its base), read again when the workspace
        changed; None when there is none. What the editor shows of the service without asking it (which push
        certificates it holds)."""
        self._load()
        return self._base.get(app_id)

    def compute(self, data: Any, *, env: Mapping[str, str], only: Collection[int] | None = None) -> dict[str, str]:
        """Every app's state; with ``only``, just those apps are compared again (the rest keep their last state,
        unless the base changed or the number of apps did)."""
        from pydantic import ValidationError

        from tenantdeck.models import App, Draft, WidgetSettings
        from tenantdeck.sync.compare import compare_app
        from tenantdeck.sync.kinds import canonical_app_from_draft
        from tenantdeck.sync.types import SHOWN_ONLY

        apps = data.get("apps") if isinstance(data, dict) else None
        if not isinstance(apps, list):
            self.states = {}
            return {}
        stale = self._load() or len(self.states) != len(apps)
        indexes: Iterable[int] = range(len(apps)) if stale or only is None else [i for i in only if i < len(apps)]
        base = self._base
        presets: dict[str, Any] = {}
        for name, preset in (data.get("presets") or {}).items() if isinstance(data.get("presets"), dict) else ():
            try:
                presets[str(name)] = WidgetSettings.model_validate(preset)
            except ValidationError:
                continue
        out = {} if stale or only is None else dict(self.states)
        for i in indexes:
            app_data = apps[i]
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
                draft._source = self.draft_path  # certificate paths are relative to the draft's folder
                canonical = canonical_app_from_draft(draft, 0, secret_key=self._key, env=env)
            except (ValidationError, KeyError, TypeError, ValueError):
                out[where] = "unknown"
                continue
            if canonical == {k: v for k, v in base[app_id].items() if k not in SHOWN_ONLY}:
                out[where] = "in sync"
                continue
            diff = compare_app(canonical, base[app_id], base[app_id], offline=True)
            out[where] = "in sync" if diff.status in ("in_sync", "drift") else "modified"
        self.states = out
        return out
