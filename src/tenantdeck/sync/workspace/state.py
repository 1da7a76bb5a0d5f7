"""The local workspace beside a draft: base snapshot, fingerprint key, push journal and history.

Layout (``.tenantdeck/<draft stem>/`` next to the draft, so two drafts in one folder never share state)::

    .tenantdeck/.gitignore          "*": nothing here belongs in version control
    .tenantdeck/<stem>/meta.json    profile, base_url, pulled_at of the last pull, identity of its account
    .tenantdeck/<stem>/base/<appId>.json   one canonical app per file (what we last saw on the service)
    .tenantdeck/<stem>/secret.key   32 random bytes, mode 0600: the HMAC key of secret fingerprints
    .tenantdeck/<stem>/journal/     push journals (written by tenantdeck.sync.workspace.journal)
    .tenantdeck/<stem>/history.jsonl  audit log (written by tenantdeck.sync.workspace.history)
    <stem>.lock.json                 beside the draft, committed: the base when it exists (tenantdeck.sync.workspace
                                     .lockfile); base/ is then a cache. Base files record the key check of their
                                     fingerprints, so a base read with another key has its secrets unverifiable.

One file per app lets a push update the base after each operation without rewriting a 1,000-app snapshot. Every
write goes through :func:`atomic_write_bytes` (temp file in the same directory, fsync, ``os.replace``, fsync of
the directory), so a crash leaves either the old or the new file, never half of one. Every read and write here
keeps to the draft's folder after every link (``beside=``, :func:`tenantdeck.safefile.beside`): the lock file and
the whole workspace arrive with a pull request, links included, and :func:`check_workspace` refuses a workspace
that leads out of the folder before a command reads, writes or sends anything. The lock file is one file for
every app, so a push batches its updates (:meth:`Workspace.lock_deferred`): rewriting 3.6 MB after each of 1,000
operations made a push quadratic (5 operations/s at 1,000 apps).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tenantdeck import safefile
from tenantdeck.atomic import (
    append_durably,
    atomic_write_bytes,
    atomic_write_json,
    fsync_dir,
    in_folder,
    make_dirs,
    open_append,
)
from tenantdeck.sync.workspace import lockfile

WORKSPACE_DIR = ".tenantdeck"
KEY_BYTES = 32
BASE_FORMAT = 1


class WorkspaceError(Exception):
    """A workspace file cannot be read or written; ``str()`` is one line naming the file."""


def _file_name(app_id: str) -> str:
    """App ids are alphanumeric on the service, but a file name must never be a path: quote anything else."""
    return quote(app_id, safe="") + ".json"


class Workspace:
    """The ``.tenantdeck/<stem>/`` directory of one draft. Nothing is created until something is written.

    ``target``: a profile the draft's targets file names (:mod:`tenantdeck.draft.target_overrides`): that account keeps
    its own base, binding, journal and history, in ``.tenantdeck/<stem>@<target>/`` with the committed base
    ``<stem>.<target>.lock.json``, so a push to production is neither compared with staging's base nor refused as
    staging's draft pointed at another account. None: the draft's own account (the layout above).
    """

    def __init__(self, draft_path: Path | str, target: str | None = None) -> None:
        self.draft_path = Path(draft_path)
        self.target = target
        #: the draft's folder as given: every file here must lie in it after every link (``beside=``)
        self.folder = self.draft_path.parent
        self.container = self.draft_path.parent / WORKSPACE_DIR
        self.root = self.container / (self.draft_path.stem + (f"@{target}" if target else ""))
        self.base_dir = self.root / "base"
        self.meta_path = self.root / "meta.json"
        self.key_path = self.root / "secret.key"
        self.journal_dir = self.root / "journal"
        self.history_path = self.root / "history.jsonl"
        self.draft_writes_path = self.root / "draft-writes.jsonl"
        #: the committed base beside the draft (:mod:`.lockfile`): the base when it exists, this directory a cache
        self.lock_path = lockfile.lock_path(self.draft_path, target)
        self._lock_mutex = threading.Lock()  # a push writes bases from worker threads; the lock file is one file
        self.lock_written_path = self.root / "lock-written.json"
        #: inside :meth:`lock_deferred`: the lock file's document and its entries not written yet (by app id)
        self._deferred: tuple[dict[str, Any], dict[str, dict[str, Any]]] | None = None
        self._deferred_depth = 0
        self._deferred_dirty = False  #: the batch started from a killed one's: the lock file is rewritten anyway

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    def ensure(self) -> Path:
        """Create the directory (and a ``.gitignore`` keeping it out of version control); returns the root."""
        make_dirs(self.root, beside=self.folder)
        ignore = self.container / ".gitignore"
        if not ignore.exists():
            atomic_write_bytes(ignore, b"# tenantdeck workspace: local state and the fingerprint key\n*\n",
                               beside=self.folder)
        return self.root

    # --- fingerprint key --------------------------------------------------------------------------------------

    def secret_key(self, new: bytes | None = None) -> bytes:
        """The workspace's HMAC key, created (mode 0600) on first use: ``new`` when given, else 32 random bytes.

        A command that knows the target passes its :meth:`~tenantdeck.targets.Target.fingerprint_key` (derived
        from the account's management secret), so the fingerprints in the committed lock file can be checked on
        another clone that knows the same secret; an existing key is kept (the base it made stays comparable).
        Creation uses ``O_EXCL`` so two processes racing here end up with the same key, not two.
        """
        try:
            return self._read_key()
        except FileNotFoundError:
            pass
        self.ensure()
        key = new if new is not None and len(new) == KEY_BYTES else secrets.token_bytes(KEY_BYTES)
        try:
            fd = os.open(in_folder(self.key_path, self.folder), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return self._read_key()
        try:
            os.write(fd, key)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(self.key_path, 0o600)  # the umask cannot loosen it, but a odd filesystem might
        fsync_dir(self.root)
        return key

    def fingerprint_key(self) -> bytes:
        """The key of this workspace's fingerprints (:meth:`secret_key`)."""
        return self.secret_key()

    def _read_key(self) -> bytes:
        data = safefile.read_bytes(self.key_path, KEY_BYTES, beside=self.folder)
        if len(data) != KEY_BYTES:
            raise WorkspaceError(
                f"{self.key_path} is damaged ({len(data)} bytes, expected {KEY_BYTES}); delete it and run "
                "`tenantdeck pull` to rebuild the base snapshot"
            )
        if os.name == "posix" and self.key_path.stat().st_mode & 0o077:
            os.chmod(self.key_path, 0o600)
        return data

    # --- base snapshot ----------------------------------------------------------------------------------------

    def base_path(self, app_id: str) -> Path:
        return self.base_dir / _file_name(app_id)

    def load_base(self, skip: Iterable[str] = ()) -> dict[str, dict[str, Any]]:
        """Every base app, keyed by app id (empty when nothing was pulled yet), except the ids in ``skip``: from the
        lock file when there is one, else from the local cache. Secret fingerprints made with another key than
        this run's are unverifiable (:func:`.lockfile.unverifiable`)."""
        check = lockfile.key_check(self.fingerprint_key())
        doc = self._lock_doc()
        if doc is not None:
            skipped = set(skip)
            return {app_id: entry["app"] if entry.get("key") == check else lockfile.unverifiable(entry["app"])
                    for app_id, entry in doc["apps"].items() if app_id not in skipped}
        return {app_id: app if key == check else lockfile.unverifiable(app)
                for app_id, (app, key) in self._load_cache(skip, check).items()}

    def _read_lock(self) -> dict[str, Any] | None:
        try:
            return lockfile.read(self.lock_path)  # beside its draft (lockfile.read keeps to the folder)
        except lockfile.LockFileError as exc:
            raise WorkspaceError(str(exc)) from None

    def _lock_doc(self) -> dict[str, Any] | None:
        """The lock file's document, with what a killed push had written to the cache and not yet to the lock.

        A batch (:meth:`lock_deferred`) starts from a lock file the cache mirrors and marks it ``behind``; until the
        lock is rewritten, each applied operation is in the cache only. When that push was killed (the mark is still
        there and the lock file is the one it started from), the cache is the newer record of every app."""
        if self._deferred is not None:  # inside a batch: the lock file as it will be written
            with self._lock_mutex:
                doc, pending = self._deferred
                return {**doc, "apps": {**doc["apps"], **pending}}
        doc = self._read_lock()
        if doc is None or not self._lock_behind():
            return doc
        apps = dict(doc["apps"])
        for app_id, (app, key) in self._load_cache((), "").items():
            apps[app_id] = {"app": app, "key": key}
        return {**doc, "apps": apps}

    def _lock_behind(self) -> bool:
        """Whether a batch of lock updates was started on the lock file as it is now and never written."""
        try:
            mark = json.loads(safefile.read_bytes(self.lock_written_path, safefile.STATE_MAX_BYTES, beside=self.folder))
        except (OSError, ValueError):
            return False
        return isinstance(mark, dict) and mark.get("behind") is True and mark.get("stat") == self._lock_stat()

    @contextlib.contextmanager
    def lock_deferred(self, on_error: Callable[[OSError], None] | None = None) -> Iterator[None]:
        """Batch the lock file's updates: inside, :meth:`write_base_app` writes the app's cache file (atomic and
        fsync'd, as always) and the lock file is rewritten once, on leaving (a removed app is written at once).

        Crash safety is the cache's: before the first deferred update the cache is made to mirror the lock file and
        a durable ``behind`` mark is left beside it, so a push killed inside the batch leaves a lock file that
        :meth:`load_base` (and the next rewrite) reads together with the newer cache files. The lock file as
        committed may lag until then, as it lagged by the operation in flight before; a push that finishes, fails or
        is interrupted writes it on its way out. ``on_error``: told when that last write fails (a full disk), which
        then leaves the mark, so the cache stays the newer record; without it the failure is raised."""
        with self._lock_mutex:
            self._deferred_depth += 1
            if self._deferred_depth == 1:
                behind = self._lock_behind()  # a killed batch's updates, read from the cache: to be written
                doc = self._lock_doc()
                if doc is not None:
                    if not self.lock_as_written():  # a fresh clone or a git pull: make the cache mirror the lock
                        self._mirror_into_cache(doc)
                    self._mark_behind()
                    self._deferred = (doc, {})
                    self._deferred_dirty = behind
        try:
            yield
        finally:
            with self._lock_mutex:
                self._deferred_depth -= 1
                if self._deferred_depth == 0 and self._deferred is not None:
                    doc, pending = self._deferred
                    self._deferred = None
                    try:
                        if pending or self._deferred_dirty:
                            self._write_lock_doc({**doc, "apps": {**doc["apps"], **pending}})
                        else:
                            self._note_lock_written()
                    except OSError as exc:
                        if on_error is None:
                            raise
                        on_error(exc)

    def _mirror_into_cache(self, doc: Mapping[str, Any]) -> None:
        """Make the local cache hold exactly the lock file's apps (each with the key check it has there)."""
        keep = {_file_name(app_id) for app_id in doc["apps"]}
        safefile.beside(self.base_dir, self.folder)  # files are removed in it: never in a folder it links to
        if self.base_dir.is_dir():
            for entry in os.scandir(self.base_dir):
                if entry.name.endswith(".json") and entry.name not in keep:
                    os.unlink(entry.path)
        make_dirs(self.base_dir, beside=self.folder)
        self._write_cache({app_id: {"format": BASE_FORMAT, "app": entry["app"], "key": entry.get("key")}
                           for app_id, entry in doc["apps"].items()})

    def _write_lock_doc(self, doc: Mapping[str, Any]) -> None:
        atomic_write_bytes(self.lock_path, lockfile.render(doc["apps"], doc.get("target")), beside=self.folder)
        self._note_lock_written()

    def _load_cache(self, skip: Iterable[str], check: str) -> dict[str, tuple[dict[str, Any], str]]:
        """The local cache's apps with the key check each was written with (an unstamped file: this workspace's
        ``secret.key``, the only key there was)."""
        if not self.base_dir.is_dir():
            return {}
        legacy: str | None = None
        out: dict[str, tuple[dict[str, Any], str]] = {}
        skipped = {_file_name(app_id) for app_id in skip}
        # os.scandir + plain open: Path.glob and read_text cost as much as the JSON parsing on 1,000 small files
        names = sorted(
            e.name for e in os.scandir(self.base_dir) if e.name.endswith(".json") and e.name not in skipped
        )  # temp files left by a crash end in .tmp
        for name in names:
            path = self.base_dir / name
            doc = self._read_json(path)
            if isinstance(doc, dict) and isinstance(doc.get("format"), int) and doc["format"] > BASE_FORMAT:
                raise newer_format(path, doc["format"])
            app = doc.get("app") if isinstance(doc, dict) else None
            if not isinstance(app, dict) or not isinstance(app.get("id"), str):
                raise WorkspaceError(f"{path} is not a base snapshot file; delete it and run `tenantdeck pull`")
            key = doc.get("key")
            if not isinstance(key, str):
                legacy = legacy or lockfile.key_check(self.secret_key())
                key = legacy
            out[app["id"]] = (app, key)
        return out

    def write_lock(self, apps: Mapping[str, dict[str, Any]], target: Mapping[str, Any] | None) -> None:
        """Write the whole lock file (a pull, or the first push of a draft without one): ``apps`` with this run's
        key check, ``target`` the account (its ``base_url``, ``account`` and ``profile``; nothing local)."""
        check = lockfile.key_check(self.fingerprint_key())
        shown = {k: target[k] for k in ("account", "base_url", "profile") if target and target.get(k)}
        with self._lock_mutex:
            atomic_write_bytes(self.lock_path, lockfile.render(
                {app_id: {"app": app, "key": check} for app_id, app in apps.items()}, shown), beside=self.folder)
            self._note_lock_written()

    def retarget_lock(self, target: Mapping[str, Any]) -> None:
        """Record another key of the same account in the lock file's ``target`` (a rotated key,
        :mod:`tenantdeck.sync.remote.rekey`); its apps, fingerprints and key checks stay byte for byte."""
        doc = self._read_lock()
        if doc is None:
            return
        shown = {k: target[k] for k in ("account", "base_url", "profile") if target.get(k)}
        with self._lock_mutex:
            self._write_lock_doc({**doc, "target": shown})

    def _lock_stat(self) -> list[int] | None:
        try:
            st = os.stat(self.lock_path)
        except OSError:
            return None
        return [st.st_size, st.st_mtime_ns, st.st_ino]

    def _note_lock_written(self) -> None:
        """Remember the lock file as tenantdeck left it: while it is so, the local cache mirrors it."""
        atomic_write_json(self.lock_written_path, {"stat": self._lock_stat()}, sync_dir=False, beside=self.folder)

    def _mark_behind(self) -> None:
        """The durable ``behind`` mark of :meth:`lock_deferred`, for the lock file as it is now."""
        atomic_write_json(self.lock_written_path, {"stat": self._lock_stat(), "behind": True}, beside=self.folder)

    def lock_as_written(self) -> bool:
        """Whether the lock file is the one tenantdeck last wrote here (not changed by a git pull, a merge, a
        checkout), so the local cache (and the offline diff's in-sync cache built on it) still mirrors it."""
        try:
            recorded = json.loads(safefile.read_bytes(self.lock_written_path, safefile.STATE_MAX_BYTES,
                                                      beside=self.folder)).get("stat")
        except (OSError, ValueError, AttributeError):
            return False
        return recorded is not None and recorded == self._lock_stat()

    def _update_lock(self, app_id: str, canonical: dict[str, Any] | None) -> None:
        """One app's entry of the lock file replaced (``None``: removed), if there is a lock file."""
        with self._lock_mutex:
            entry = None if canonical is None else {"app": canonical, "key": lockfile.key_check(self.fingerprint_key())}
            if self._deferred is not None and entry is not None:
                self._deferred[1][app_id] = entry  # written when the batch ends
                return
            if self._deferred is not None:
                doc, pending = self._deferred
                doc = {**doc, "apps": {**doc["apps"], **pending}}
                pending.clear()
            else:
                doc = self._lock_doc()
            if doc is None:
                return
            apps = dict(doc["apps"])
            if entry is None:
                if apps.pop(app_id, None) is None:
                    return
            else:
                apps[app_id] = entry
            doc = {**doc, "apps": apps}
            if self._deferred is not None:
                self._deferred = (doc, self._deferred[1])
            self._write_lock_doc(doc)
            if self._deferred is not None:  # still batching: the mark stays, for the lock file just written
                self._mark_behind()

    def write_base_app(self, app_id: str, canonical: dict[str, Any]) -> None:
        """Store one app's canonical state (atomically); ``canonical["id"]`` must be ``app_id``."""
        if canonical.get("id") != app_id:
            raise ValueError(f"canonical app id {canonical.get('id')!r} does not match {app_id!r}")
        self.ensure()
        atomic_write_json(self.base_path(app_id), self._entry(canonical), make_parents=True, beside=self.folder)
        self._update_lock(app_id, canonical)

    def _entry(self, canonical: dict[str, Any]) -> dict[str, Any]:
        return {"format": BASE_FORMAT, "app": canonical, "key": lockfile.key_check(self.fingerprint_key())}

    def write_base_apps(self, apps: Mapping[str, dict[str, Any]], *, threads: int = 8) -> None:
        """Store many apps (a pull): each file atomic as in :meth:`write_base_app`, written by a few threads.

        A pull of 1,000 apps would otherwise spend seconds in 2,000 sequential fsyncs; fsync releases the GIL, so
        threads overlap them, and the directory is synced once at the end instead of once per file.
        """
        for app_id, canonical in apps.items():
            if canonical.get("id") != app_id:
                raise ValueError(f"canonical app id {canonical.get('id')!r} does not match {app_id!r}")
        if not apps:
            return
        self.ensure()
        make_dirs(self.base_dir, beside=self.folder)

        self.fingerprint_key()  # made (if need be) before the threads read it
        self._write_cache({app_id: self._entry(canonical) for app_id, canonical in apps.items()}, threads)

    def _write_cache(self, entries: Mapping[str, dict[str, Any]], threads: int = 8) -> None:
        """Many cache files at once, by a few threads (fsync releases the GIL), the directory synced once."""
        from concurrent.futures import ThreadPoolExecutor  # only a pull (or a first batch) writes many at once

        def write(item: tuple[str, dict[str, Any]]) -> None:
            atomic_write_json(self.base_path(item[0]), item[1], sync_dir=False, make_parents=True,
                              beside=self.folder)

        with ThreadPoolExecutor(max_workers=max(1, min(threads, len(entries)))) as pool:
            list(pool.map(write, entries.items()))  # list(): re-raise the first failure here
        fsync_dir(self.base_dir)

    def delete_base_app(self, app_id: str) -> None:
        """Forget one app (deleted on the service); missing is fine."""
        self._update_lock(app_id, None)
        safefile.beside(self.base_dir, self.folder)  # never a file of a folder it links to
        try:
            self.base_path(app_id).unlink()
        except FileNotFoundError:
            return
        fsync_dir(self.base_dir)

    # --- meta -------------------------------------------------------------------------------------------------

    def read_meta(self) -> dict[str, Any] | None:
        """``{"profile", "base_url", "pulled_at"}`` of the last pull, or None before the first."""
        if not self.meta_path.exists():
            return None
        doc = self._read_json(self.meta_path)
        if not isinstance(doc, dict):
            raise WorkspaceError(f"{self.meta_path} is not a JSON object; delete it and run `tenantdeck pull`")
        return doc

    def write_meta(self, *, profile: str | None, base_url: str | None, pulled_at: datetime | None = None,
                   identity: Mapping[str, Any] | None = None) -> None:
        """Record where and when the base snapshot was taken (``pulled_at`` defaults to now, UTC), and the account
        it was taken from (``identity``: :mod:`tenantdeck.sync.workspace.binding`)."""
        when = (pulled_at or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
        self.ensure()
        doc: dict[str, Any] = {"profile": profile, "base_url": base_url, "pulled_at": when}
        if identity is not None:
            doc["identity"] = dict(identity)
        atomic_write_json(self.meta_path, doc, beside=self.folder)

    def record_identity(self, identity: Mapping[str, Any]) -> None:
        """Record the account the base now belongs to, keeping when it was pulled (a push to a draft that had no
        identity yet, or after ``--rebind``)."""
        meta = self.read_meta() or {}
        pulled = meta.get("pulled_at")
        try:
            when = datetime.fromisoformat(pulled) if isinstance(pulled, str) else None
        except ValueError:
            when = None
        self.write_meta(profile=identity.get("profile"), base_url=identity.get("base_url"), pulled_at=when,
                        identity=identity)

    def clear_base(self) -> None:
        """Forget the whole base snapshot, lock file included (``--rebind``: it describes another account)."""
        for app_id in list(self.load_base()) + list(self._load_cache((), "")):
            self.delete_base_app(app_id)
        if self.lock_path.exists():
            self.lock_path.unlink()

    # --- the tool's own writes to the draft ------------------------------------------------------------------

    def record_draft_write(self, before_sha256: str, after_sha256: str) -> None:
        """Remember that tenantdeck itself turned the draft ``before`` into ``after`` (ids written back).

        A saved plan records the draft's hash; without this record the tool's own id write-back would make the draft
        look "changed since the plan" and a resumed push could not tell it from an edit by the user.
        """
        self.ensure()
        line = json.dumps({"before": before_sha256, "after": after_sha256}) + "\n"
        fd = open_append(self.draft_writes_path, beside=self.folder)
        try:
            append_durably(fd, line.encode(), self.draft_writes_path)
        finally:
            os.close(fd)

    def written_by_tool(self, original_sha256: str, current_sha256: str) -> bool:
        """Whether ``current`` is ``original`` with only tenantdeck's own recorded writes applied."""
        if original_sha256 == current_sha256:
            return True
        try:
            text = safefile.read_text(self.draft_writes_path, safefile.STATE_MAX_BYTES, beside=self.folder)
        except OSError:
            return False
        steps: dict[str, str] = {}
        for line in text.splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a torn last line
            if isinstance(rec, dict) and isinstance(rec.get("before"), str) and isinstance(rec.get("after"), str):
                steps[rec["before"]] = rec["after"]
        seen = {original_sha256}
        sha = original_sha256
        while sha in steps:
            sha = steps[sha]
            if sha == current_sha256:
                return True
            if sha in seen:
                return False
            seen.add(sha)
        return False

    # --- helpers ----------------------------------------------------------------------------------------------

    def _read_json(self, path: Path) -> Any:
        try:
            return json.loads(safefile.read_bytes(path, safefile.STATE_MAX_BYTES, beside=self.folder))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            raise WorkspaceError(f"cannot read {path}: {reason}; delete it and run `tenantdeck pull`") from None


def unwritable(draft_path: Path, workspace: Workspace) -> list[str]:
    """One line per file or directory a push must write and cannot (empty when all is well).

    A push records what the service did in the journal and the base, and writes created ids back into the draft.
    If the draft cannot be written (a read-only or immutable file, a read-only directory) the push would create an
    app and then fail to record its id; re-running would create another. So it refuses first.
    """
    out: list[str] = []
    refused = beside_refusal(workspace)
    if refused is not None:
        return [str(outside_error(refused))]
    draft_dir = draft_path.parent if str(draft_path.parent) else Path(".")
    if draft_path.exists() and not os.access(draft_path, os.W_OK):
        out.append(f"cannot write {draft_path} (read-only or immutable): a push records created ids there")
    if not os.access(draft_dir, os.W_OK):
        out.append(f"cannot write in {draft_dir}: the draft is saved by replacing it atomically")
    try:
        root = workspace.ensure()
        for where in (root, workspace.base_dir, workspace.journal_dir):
            make_dirs(where, beside=workspace.folder)
            if not os.access(where, os.W_OK):
                out.append(f"cannot write in {where}: a push journals every operation there")
        for path in (workspace.history_path, workspace.draft_writes_path):
            if path.exists() and not os.access(path, os.W_OK):
                out.append(f"cannot write {path}")
    except OSError as exc:
        out.append(f"cannot create the workspace {workspace.root}: {exc.strerror or exc}")
    return out


# --- a workspace that is not one: clear errors instead of tracebacks ----------------------------------------------


def newer_format(path: Path, found: int) -> WorkspaceError:
    """A file written by a newer tenantdeck: reading it as ours could push the wrong thing, so nothing is read."""
    return WorkspaceError(f"{path} was written by a newer tenantdeck (format {found}; this one reads format "
                          f"{BASE_FORMAT}); upgrade tenantdeck, or move the workspace aside and run `tenantdeck pull`")


def workspace_error(workspace: Workspace, exc: OSError) -> WorkspaceError:
    """``exc`` (from creating or reading the workspace) as one line naming the file and what to do."""
    where = Path(exc.filename) if exc.filename else workspace.root
    reason = exc.strerror or type(exc).__name__
    return WorkspaceError(f"cannot use the workspace {where}: {reason}; tenantdeck keeps its base snapshot and "
                          f"push journal in {workspace.root} (a directory); fix or move it aside, then run the "
                          "command again")


#: files of the workspace that are appended to or locked in place (never replaced): a link there is refused
#: outright, even one that stays in the folder (``history.jsonl -> ../../tenantdeck.yaml``); ``lock``: the
#: ``flock`` file, which the lock opens with ``O_TRUNC``
IN_PLACE = ("history.jsonl", "draft-writes.jsonl", "lock")


def _links(folder: Path) -> list[Path]:
    """The symbolic links directly in ``folder`` (none when it is not a folder)."""
    try:
        with os.scandir(folder) as entries:
            return [Path(e.path) for e in entries if e.is_symlink()]
    except OSError:
        return []


def beside_refusal(workspace: Workspace) -> safefile.FileRefused | None:
    """Why the draft's lock file or workspace would take a read or a write out of the draft's folder (None: they
    keep to it): the lock file, ``.tenantdeck`` and each folder and file in it, after every link
    (:func:`tenantdeck.safefile.beside`); and a link at all where a file is appended to or locked in place
    (:data:`IN_PLACE`). Checked before anything is read, written or sent: every read and write checks again."""
    folder = workspace.folder
    paths = [workspace.lock_path, workspace.container, workspace.root, workspace.base_dir, workspace.journal_dir]
    for where in (workspace.container, workspace.root, workspace.base_dir, workspace.journal_dir):
        paths += _links(where)
    for path in paths:
        refused = safefile.beside_or_none(path, folder)
        if refused is not None:
            return refused
    for name in IN_PLACE:
        path = workspace.root / name
        if path.is_symlink():
            return safefile.FileRefused(path, f"is a symbolic link (to {os.readlink(path)}): tenantdeck writes this "
                                        "file in place, never through a link", safefile.NOT_REGULAR)
    return None


def outside_error(refused: safefile.FileRefused) -> WorkspaceError:
    """:func:`beside_refusal` as the one line a command ends with (exit 1, as an unreadable file)."""
    return WorkspaceError(f"{refused}; nothing was read from or written through it: remove the link (a pull "
                          "request may have added it: `git diff --summary` shows mode 120000), then run the command "
                          "again")


def check_workspace(workspace: Workspace) -> None:
    """Raise :class:`WorkspaceError` when the workspace beside the draft cannot be what it must be: ``.tenantdeck``
    (or ``.tenantdeck/<stem>``) a plain file, a dangling symbolic link, or a directory we may not read or enter;
    or it, the lock file or a file in it leads out of the draft's folder (:func:`beside_refusal`).

    A missing workspace is fine (nothing pulled yet). Without this check such a workspace read as "no base" (every
    app unknown) or ended in a traceback from the first ``open`` under it.
    """
    refused = beside_refusal(workspace)
    if refused is not None:
        raise outside_error(refused)
    for where in (workspace.container, workspace.root):
        try:
            st = os.stat(where)
        except FileNotFoundError:
            if os.path.islink(where):
                raise WorkspaceError(f"cannot use the workspace {where}: it is a symbolic link to "
                                     f"{os.readlink(where)}, which does not exist; create that directory or remove "
                                     "the link, then run the command again") from None
            return
        except OSError as exc:
            raise workspace_error(workspace, exc) from None
        if not stat.S_ISDIR(st.st_mode):
            raise WorkspaceError(f"cannot use the workspace {where}: it is a file, not a directory; tenantdeck keeps "
                                 "its base snapshot and push journal there: move the file aside, then run the "
                                 "command again")
        if not os.access(where, os.R_OK | os.X_OK):
            raise WorkspaceError(f"cannot use the workspace {where}: permission denied (it cannot be read); fix its "
                                 "permissions (chmod u+rwx), then run the command again")
