"""Each app's change state against the base snapshot, from in-memory draft data: what the editor's Apps list shows.

The same three-way comparison ``diff --offline`` makes (live = base), one app at a time, so an app whose data
does not validate yet is reported as ``unknown`` instead of hiding every other app's state. No network, and no
file is written: without a workspace key there can be no base, so every app is new or has no base.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenantdeck.gcpause import paused_gc

if TYPE_CHECKING:
    from tenantdeck.models import App, WidgetSettings
    from tenantdeck.sync.kinds import Part

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
        #: per app index, each kind's last canonical part (``canonical_app_from_draft(parts=...)``), valid while
        #: the presets, key and environment below are the ones they were made with
        self._parts: dict[int, dict[str, Part]] = {}
        self._made_with: tuple[list[tuple[str, Any]], bytes, dict[str, str]] | None = None
        #: per app id, its base's resources cut into leaves (``compare_app(base_leaves=...)``), until the base changes
        self._base_leaves: dict[str, dict[Any, tuple[Any, Any]]] = {}
        #: one computation at a time (the editor refreshes states from more than one worker): the kept parts and
        #: leaves are shared between them (``last_read`` does not wait for it: a screen asks it)
        self._lock = threading.Lock()

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
        self._base_leaves = {}
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

    def compute(self, data: Any, *, env: Mapping[str, str], only: Collection[int] | None = None,
                models: tuple[Sequence[App | None], Mapping[str, WidgetSettings]] | None = None) -> dict[str, str]:
        """Every app's state; with ``only``, just those apps are compared again (the rest keep their last state,
        unless the base changed or the number of apps did).

        ``models``: the validated app models (None: does not validate) and preset models of ``data``, as the
        editor's session holds them (``DraftSession.validated_models``), used instead of validating every app
        again; a kind whose fields are the same model objects as last time keeps its canonical part."""
        with self._lock, paused_gc():  # 5,000 apps' canonical parts: no garbage cycles (tenantdeck.gcpause)
            return self._compute(data, env=env, only=only, models=models)

    def _compute(self, data: Any, *, env: Mapping[str, str], only: Collection[int] | None,
                 models: tuple[Sequence[App | None], Mapping[str, WidgetSettings]] | None) -> dict[str, str]:
        from tenantdeck.models import App, Draft
        from tenantdeck.sync.compare import compare_app
        from tenantdeck.sync.kinds import canonical_app_from_draft
        from tenantdeck.sync.types import DEFAULTED, SHOWN_ONLY

        apps = data.get("apps") if isinstance(data, dict) else None
        if not isinstance(apps, list):
            self.states = {}
            return {}
        stale = self._load() or len(self.states) != len(apps)
        indexes: Iterable[int] = range(len(apps)) if stale or only is None else [i for i in only if i < len(apps)]
        base = self._base
        app_models = models[0] if models is not None and len(models[0]) == len(apps) else None
        presets = dict(models[1]) if models is not None else _presets(data)
        made_with = (list(presets.items()), self._key, dict(env))
        if stale or only is None or not self._same_making(made_with):
            self._parts = {}
        self._made_with = made_with
        out = {} if stale or only is None else dict(self.states)
        held: list[Any] = [None]  # one draft of one app, the app swapped in (a model per app was 5,000 more)
        draft = Draft.model_construct(format=1, presets=presets, apps=held)
        draft._source = self.draft_path  # certificate paths are relative to the draft's folder
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
                app = app_models[i] if app_models is not None else App.model_validate(app_data)
                if app is None or app.id != app_id:
                    raise ValueError("the app does not validate")
                held[0] = app
                canonical = canonical_app_from_draft(draft, 0, secret_key=self._key, env=env,
                                                     parts=self._parts.setdefault(i, {}))
            except (KeyError, TypeError, ValueError):  # pydantic's ValidationError is a ValueError
                self._parts.pop(i, None)
                out[where] = "unknown"
                continue
            same = canonical if DEFAULTED not in canonical else {k: v for k, v in canonical.items() if k != DEFAULTED}
            if same == {k: v for k, v in base[app_id].items() if k not in SHOWN_ONLY}:
                out[where] = "in sync"
                continue
            diff = compare_app(canonical, base[app_id], base[app_id], offline=True,
                               base_leaves=self._base_leaves.setdefault(app_id, {}))
            out[where] = "in sync" if diff.status in ("in_sync", "drift") else "modified"
        self.states = out
        return out

    def parts_made_with(self, presets: Mapping[str, Any], key: bytes,
                        env: Mapping[str, str]) -> dict[int, dict[str, Part]]:
        """Copies of each app's kept canonical parts, by app index, when they were made with these very preset
        models, this key and this environment; else nothing. A plan of the same session's models canonicalises every app
        again (half of F6's plan at 1,000 apps); with these, only the kinds whose models changed since the last
        change states (``canonical_app_from_draft(parts=...)``). Copies: the plan's worker updates its own."""
        with self._lock:
            if not self._same_making((list(presets.items()), key, dict(env))):
                return {}
            return {i: dict(parts) for i, parts in self._parts.items()}

    def keep_parts(self, presets: Mapping[str, Any], key: bytes, env: Mapping[str, str],
                   parts: dict[int, dict[str, Part]]) -> None:
        """Keep a plan's canonical parts (by app index, as :meth:`parts_made_with` gave them, filled in by
        ``canonical_app_from_draft``) for the next plan: the change states canonicalise only the apps with a base, so
        at 1,000 new or unbased apps every F6 made every part again (60-90 ms of its plan). Made with other presets,
        key or environment than the parts kept now, they replace them (the states' next run, if it is made otherwise,
        starts afresh as it always did). Whatever is kept, ``canonical_app_from_draft`` reuses a part only while the
        app's fields are the very objects it was made from: a part kept too long is made again, never wrong."""
        made_with = (list(presets.items()), key, dict(env))
        with self._lock:
            if not self._same_making(made_with):
                self._parts, self._made_with = {}, made_with
            self._parts.update(parts)

    def _same_making(self, made_with: tuple[list[tuple[str, Any]], bytes, dict[str, str]]) -> bool:
        """The kept parts were made with these presets (the same model objects), key and environment."""
        last = self._made_with
        if last is None or last[1] != made_with[1] or last[2] != made_with[2] or len(last[0]) != len(made_with[0]):
            return False
        return all(a[0] == b[0] and a[1] is b[1] for a, b in zip(last[0], made_with[0], strict=True))


def _presets(data: Mapping[str, Any]) -> dict[str, WidgetSettings]:
    """Each valid preset of the draft's data, validated (the others are left out, as the session does)."""
    from pydantic import ValidationError

    from tenantdeck.models import WidgetSettings

    presets: dict[str, WidgetSettings] = {}
    raw = data.get("presets")
    for name, preset in raw.items() if isinstance(raw, dict) else ():
        try:
            presets[str(name)] = WidgetSettings.model_validate(preset)
        except ValidationError:
            continue
    return presets
