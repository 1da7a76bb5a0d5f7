"""``tenantdeck pull``: the service's configuration -> the draft, plus a base snapshot for later diffs.

Order matters for safety: everything is fetched and converted in memory first (a network failure changes no
file); then the draft is saved (atomically, comments kept); only then is the base snapshot written. A crash
between the two leaves the old base, which later shows up as remote changes to review, never as local edits
that would revert the service.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenantdeck.models import App, Draft
from tenantdeck.problems import Problem
from tenantdeck.sync.canonical import with_last_pushed
from tenantdeck.sync.kinds import canonical_app_from_remote
from tenantdeck.sync.pull_preview import PullPreview, match_apps, preview_pull
from tenantdeck.sync.remote.fetch import fetch_remote_apps, managed_extensions_of
from tenantdeck.sync.remote_to_draft import SecretNamer, app_from_canonical, draft_notes, reserve_draft_references
from tenantdeck.sync.types import VERBATIM, kept_whole
from tenantdeck.sync.workspace.state import Workspace

if TYPE_CHECKING:
    from tenantdeck.api.client import ManagementClient
    from tenantdeck.targets import Target

#: Apps fetched at once; the client's own limiter (same number) caps requests in flight.
DEFAULT_CONCURRENCY = 16


class PullError(Exception):
    """A pull that cannot proceed for a reason other than the service (a broken draft, an unknown --app id)."""


@dataclass
class PullResult:
    """What a pull did, for the one-line summary and for tests."""

    draft_path: Path
    workspace: Workspace
    apps: int = 0
    widgets: int = 0
    webhooks: int = 0
    extension_settings: int = 0  #: extensions with settings on the service
    team: int = 0  #: admins and moderators
    removed_apps: list[str] = field(default_factory=list)
    #: ids of the apps kept out of the draft as the service holds them (a name the draft refuses: their notes say)
    kept_apps: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    #: what the pull changed in the draft that was there, each change with whose it was (the editor's F5 preview):
    #: the CLI names the unpushed edits it discarded (:attr:`PullPreview.lost`); None for a first pull
    changed: PullPreview | None = None

    def summary(self) -> str:
        """``pulled 3 apps (2 widgets, 5 webhooks, 4 extension settings, 2 team members) into tenantdeck.yaml; base in
        tenantdeck.lock.json (cache .tenantdeck/x/)``: the lock file is the base the README names and git keeps; the
        folder is the local cache (it said only "base snapshot in .tenantdeck/x/": trial J, J12)."""
        try:
            base = os.path.relpath(self.workspace.root)
        except ValueError:  # another drive on Windows
            base = str(self.workspace.root)
        if base.startswith(os.pardir):
            base = str(self.workspace.root)
        text = (
            f"pulled {_count(self.apps, 'app')} ({_count(self.widgets, 'widget')}, "
            f"{_count(self.webhooks, 'webhook')}, {self.extension_settings} extension settings, "
            f"{_count(self.team, 'team member')}) into {self.draft_path.name}; base in "
            f"{self.workspace.lock_path.name} (cache {base}{os.sep})"
        )
        if self.removed_apps:
            text += f"; removed {_count(len(self.removed_apps), 'app')} no longer on the service"
        if self.kept_apps:
            text += (f"; kept {_count(len(self.kept_apps), 'app')} out of the draft, as the service holds it "
                     "(see the note)")
        return text


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _read_existing(path: Path) -> tuple[Draft | None, str | None]:
    """The current draft and its text, or (None, None) when there is no file yet."""
    if not path.exists():
        return None, None
    from tenantdeck.draft import load_draft

    result = load_draft(path)
    if result.draft is None:
        first = next((p for p in result.problems if p.is_error), None)
        reason = first.render() if first is not None else "it could not be read"
        raise PullError(
            f"cannot pull into {path}: {reason}; fix the draft (tenantdeck validate) or pull into another file "
            "with --draft"
        )
    return result.draft, result.doc.text


def _sort_key(app: App) -> tuple[str, str]:
    return (app.name, app.id or "")


async def pull(
    client: ManagementClient,
    draft_path: Path | str,
    *,
    app_ids: Iterable[str] | None = None,
    profile: str | None = None,
    base_url: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    identity: Mapping[str, Any] | None = None,
    rebind: bool = False,
    fingerprint_key: bytes | None = None,
) -> PullResult:
    """Pull the account (or only ``app_ids``) into the draft at ``draft_path`` and its base snapshot.

    ``identity``: the account ``client`` talks to (:func:`tenantdeck.sync.workspace.binding.identity_of`). A draft
    whose base was taken from another account is :class:`~tenantdeck.sync.workspace.binding.WrongTarget` before
    anything is read (a pull of another account would remove every app from the draft), unless ``rebind``: then
    the old base is set aside and the draft becomes this account's. ``fingerprint_key``: the target's, the
    workspace's key if it has none yet. The base is written to the local cache and to the committed lock file.

    Raises the client's ``ApiError`` family for anything the service does, :class:`PullError` for a draft that
    cannot be read or an unknown app id, ``WorkspaceError``/``OSError`` for local files.
    """
    from tenantdeck.atomic import leads_to
    from tenantdeck.draft import load_draft, save_draft
    from tenantdeck.sync.workspace.binding import check_identity, needs_rebind

    path = Path(draft_path)
    wanted = list(dict.fromkeys(app_ids)) if app_ids else None
    workspace = Workspace(path)
    if identity is not None:
        check_identity(workspace, identity, rebind=rebind)
    set_aside = identity is not None and rebind and needs_rebind(workspace, identity)
    opened = leads_to(path)  # the write goes there, never through a link planted while the service is read
    existing, original_text = _read_existing(path)

    remote_apps = await client.list_apps()
    if wanted is not None:
        by_id = {a.id: a for a in remote_apps}
        missing = [i for i in wanted if i not in by_id]
        if missing:
            raise PullError(
                f"no app with id {', '.join(missing)} on the service; `tenantdeck pull` without --app lists them all"
            )
        remote_apps = [by_id[i] for i in wanted]
    secret_key = workspace.secret_key(fingerprint_key)
    by_app: dict[str, dict[str, Any]] = {}

    def canonicalise(bundle: Any) -> None:
        # at once, as each app arrives: the SMS token in clear goes no further than its fingerprint
        by_app[bundle.app.id] = canonical_app_from_remote(bundle, secret_key=secret_key)
        bundle.sms = bundle.extension_settings = None

    # what the old base holds is read whatever the service says is enabled: a pull must not lose it
    wanted_ext = managed_extensions_of(({} if set_aside else workspace.load_base()).items())
    await fetch_remote_apps(client, remote_apps, concurrency, on_done=canonicalise, wanted_extensions=wanted_ext)
    canonicals = [by_app[a.id] for a in remote_apps]

    old_base = {} if set_aside else workspace.load_base()
    # what the service never reports (write-only webhook fields): keep what tenantdeck last pushed
    canonicals = [with_last_pushed(c, old_base.get(c["id"])) for c in canonicals]
    changed = _changed_in_draft(existing, canonicals, old_base, secret_key, wanted is not None)
    old_apps = list(existing.apps) if existing is not None else []
    presets = dict(existing.presets) if existing is not None else {}
    namer = SecretNamer()
    reserve_draft_references(namer, old_apps)
    remote_ids = [c["id"] for c in canonicals]
    result = PullResult(draft_path=path, workspace=workspace, changed=changed)
    matched = match_apps(old_apps, canonicals, result.notes)

    pulled: list[App] = []
    for canonical in canonicals:
        conversion = app_from_canonical(
            canonical,
            existing=matched.get(canonical["id"]),
            base=old_base.get(canonical["id"]),
            presets=presets,
            namer=namer,
        )
        result.notes.extend(conversion.notes)
        if conversion.verbatim:
            canonical[VERBATIM] = conversion.verbatim  # the base keeps them; leaving them out is not a delete
        if conversion.app is None:
            result.kept_apps.append(canonical["id"])
            continue  # kept out of the draft as a whole: in the base only (its note says so)
        pulled.append(conversion.app)
        result.widgets += len(canonical["widgets"])
        result.webhooks += len(canonical["webhooks"])
        result.extension_settings += len(canonical.get("extension_settings") or {})
        result.team += len(canonical.get("team") or {})
    result.apps = len(pulled)

    replaced = {id(a) for a in matched.values()}
    kept: list[App] = []
    for app in old_apps:
        if id(app) in replaced:
            continue
        if wanted is not None or app.id is None:
            kept.append(app)  # other apps (with --app) and apps not created yet stay as they are
        else:
            result.removed_apps.append(app.name)
    fields: dict[str, Any] = {"format": 1}
    if existing is not None and "presets" in existing.model_fields_set:
        fields["presets"] = presets  # untouched: pull never rewrites a preset
    fields["apps"] = sorted(pulled + kept, key=_sort_key)
    new_draft = Draft.model_validate(fields)
    if original_text is not None and _has_literal_secret(old_apps):
        result.notes.extend(_dropped_secret_notes(path, original_text, new_draft))

    # file work runs in a thread: an event loop (the TUI's) stays responsive while 1,000 apps are written
    notes = draft_notes(new_draft, {c["id"]: c for c in canonicals})  # what the service does not report
    await asyncio.to_thread(save_draft, path, new_draft, original_text=original_text, notes=notes, leads_to=opened)
    await asyncio.to_thread(workspace.write_base_apps, {c["id"]: c for c in canonicals})
    if wanted is None or set_aside:
        for stale in set(workspace.load_base()) - set(remote_ids):
            workspace.delete_base_app(stale)  # with --rebind and --app too: the other account's base goes
    locked = {} if wanted is None or set_aside else dict(old_base)  # --app: the other apps' base stays
    locked.update({c["id"]: c for c in canonicals})
    workspace.write_lock(locked, identity if identity is not None else {"base_url": base_url, "profile": profile})
    workspace.write_meta(profile=profile, base_url=base_url,
                         identity=dict(identity) if identity is not None else None)

    result.problems = list((await asyncio.to_thread(load_draft, path)).problems)
    return result


def _changed_in_draft(existing: Draft | None, canonicals: list[dict[str, Any]], base: Mapping[str, Any],
                      secret_key: bytes, some: bool) -> PullPreview | None:
    """What writing ``canonicals`` over the draft ``existing`` changes, each change with whose it is: the editor's
    preview (:func:`preview_pull`), so both say the same of one pull. ``some``: only these apps were read (--app),
    so the draft's others are not "removed". Its canonicals are copies: the preview marks what it keeps verbatim."""
    if existing is None:
        return None
    apps = list(existing.apps)
    if some:
        ids = {c["id"] for c in canonicals}
        apps = [a for a in apps if a.id is None or a.id in ids]
    draft = existing.model_copy(update={"apps": apps})
    data = {"apps": [a.model_dump(mode="json", exclude_none=True, exclude_unset=True) for a in apps]}
    return preview_pull(data, [dict(c) for c in canonicals], base, secret_key=secret_key, env=os.environ,
                        draft=draft)


async def fetch_pull(client: ManagementClient, workspace: Workspace, *,
                     concurrency: int = DEFAULT_CONCURRENCY) -> list[dict[str, Any]]:
    """Every app of the service as the canonical apps a pull writes (webhooks' write-only fields from the base)."""
    remote_apps = await client.list_apps()
    secret_key = workspace.secret_key()
    by_app: dict[str, dict[str, Any]] = {}

    def canonicalise(bundle: Any) -> None:
        by_app[bundle.app.id] = canonical_app_from_remote(bundle, secret_key=secret_key)
        bundle.sms = bundle.extension_settings = None  # secrets in clear go no further than their fingerprints

    base = workspace.load_base()
    await fetch_remote_apps(client, remote_apps, concurrency, on_done=canonicalise,
                            wanted_extensions=managed_extensions_of(base.items()))
    return [with_last_pushed(by_app[a.id], base.get(a.id)) for a in remote_apps]


@dataclass(slots=True)
class PullPreviewed:
    """A pull's preview and the live apps it was made from (kept to advance the base once the draft is saved)."""

    preview: PullPreview
    live: dict[str, dict[str, Any]]


async def preview_pull_target(target: Target, draft_path: Path, data: Mapping[str, Any], env: Mapping[str, str], *,
                              concurrency: int = DEFAULT_CONCURRENCY,
                              client_options: Mapping[str, Any] | None = None,
                              draft: Draft | None = None) -> PullPreviewed:
    """Read the service and say what pulling it would change in ``data`` (the editor's draft; ``draft``, its models
    if they are at hand): nothing written.

    A draft whose base was taken from another account is refused first
    (:class:`~tenantdeck.sync.workspace.binding.WrongTarget`): its preview would remove every app."""
    from tenantdeck.sync.workspace.binding import check_identity, identity_of

    workspace = Workspace(draft_path)
    check_identity(workspace, identity_of(target))
    workspace.secret_key(target.fingerprint_key())
    async with target.client(concurrency=concurrency, **dict(client_options or {})) as client:
        canonicals = await fetch_pull(client, workspace, concurrency=concurrency)
    base = workspace.load_base()
    preview = await asyncio.to_thread(preview_pull, data, canonicals, base, secret_key=workspace.secret_key(), env=env,
                                      draft=draft)
    return PullPreviewed(preview, {c["id"]: c for c in canonicals})


def record_pulled_base(draft_path: Path, live: Mapping[str, Mapping[str, Any]], env: Mapping[str, str]) -> int:
    """After the editor saved a pulled draft: advance the base where the saved draft and the pulled live agree.

    Field by field (:func:`~tenantdeck.sync.advance.advance_app`), not wholesale, so a pull taken back with undo
    before saving advances nothing, and the values it would have brought stay remote changes (drift) rather than
    turning into local edits that a push would send back. An app the base does not know yet (new on the service)
    takes the live app as its base once the saved draft has it; an app gone from the service and from the saved
    draft leaves the base. Returns the number of apps whose base was written.
    """
    from tenantdeck.sync.advance import advance_app
    from tenantdeck.sync.workspace.local import DraftInvalid, load_local

    try:
        local = load_local(draft_path, env)
    except DraftInvalid:
        return 0
    written = 0
    in_draft = {a["id"]: a for a in local.apps if a.get("id")}
    for app_id, live_app in live.items():
        draft_app = in_draft.get(app_id)
        if draft_app is None:
            if kept_whole(live_app):  # the pull kept it out of the draft: only the base can hold it
                local.workspace.write_base_app(app_id, dict(live_app))
                written += 1
            continue
        base = local.base.get(app_id)
        new = dict(live_app) if base is None else advance_app(draft_app, base, live_app)
        if base is not None and (live_app.get(VERBATIM) or base.get(VERBATIM)):
            new = _with_verbatim_of(new if new is not None else dict(base), live_app)
        if new is not None:
            local.workspace.write_base_app(app_id, new)
            written += 1
    for app_id in set(local.base) - set(live) - set(in_draft):
        local.workspace.delete_base_app(app_id)
        written += 1
    return written


def _with_verbatim_of(base: dict[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with what the pull kept as the service holds it (``live``'s ``verbatim`` entries) recorded as
    live has them: the saved draft leaves them out, so only the base can hold them (else they read as deletes)."""
    kept = live.get(VERBATIM) or {}
    out = {k: v for k, v in base.items() if k != VERBATIM}
    if kept:
        out[VERBATIM] = kept
    for section, keys in kept.items():
        theirs = live.get(section) or {}
        out[section] = {**(out.get(section) or {}), **{k: theirs[k] for k in keys if k in theirs}}
    return out


def _has_literal_secret(apps: Iterable[App]) -> bool:
    """Whether any app writes a secret as a value, in any field the models mark secret (extension keys too)."""
    from tenantdeck.models.app import app_secret_values
    from tenantdeck.models.secrets import is_reference

    return any(not is_reference(value) for app in apps for _, value in app_secret_values(app))


def _dropped_secret_notes(path: Path, original_text: str, new_draft: Draft) -> list[str]:
    """Where the pull took a literal secret out of the draft: the user must now set the variable instead, and the
    ``.bak`` will not hold the value either (``save_draft`` writes it without)."""
    from tenantdeck.draft.save import draft_data, dropped_literal_secrets
    from tenantdeck.problems import format_path

    return [
        f"{path}:{s.line}: {format_path(s.path)}: the literal secret is now {s.reference or 'a ${VAR} reference'}; "
        "set that variable to its value to push it (the .bak keeps the reference, not the value)"
        for s in dropped_literal_secrets(original_text, draft_data(new_draft))
    ]


def pull_target(
    target: Target,
    draft_path: Path | str,
    *,
    app_ids: Iterable[str] | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    client_options: Mapping[str, Any] | None = None,
    rebind: bool = False,
) -> PullResult:
    """Blocking pull against a resolved target (what the CLI calls)."""
    from tenantdeck.sync.workspace.binding import identity_of

    async def run() -> PullResult:
        async with target.client(concurrency=concurrency, **dict(client_options or {})) as client:
            return await pull(
                client,
                draft_path,
                app_ids=app_ids,
                profile=target.name,
                base_url=target.base_url,
                concurrency=concurrency,
                identity=identity_of(target),
                rebind=rebind,
                fingerprint_key=target.fingerprint_key(),
            )

    result = asyncio.run(run())
    prime_in_sync_cache(Path(draft_path))
    return result


def prime_in_sync_cache(draft_path: Path) -> None:
    """Record the freshly pulled apps as in sync (they are, by construction), so the next offline diff is fast.

    Best effort: this runs the ordinary offline comparison, and a cache that cannot be written only costs time.
    """
    from tenantdeck.sync.workspace.local import DraftInvalid, compare_local, load_local
    from tenantdeck.sync.workspace.state import WorkspaceError

    try:
        compare_local(load_local(draft_path, reuse_in_sync=True), None)
    except (DraftInvalid, WorkspaceError, OSError):
        return
