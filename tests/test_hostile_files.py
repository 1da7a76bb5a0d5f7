"""Every file tenantdeck opens (issue 32, "Every file tenantdeck opens"): a FIFO, a device or a directory where any
of them is expected is a clear error in bounded time, never a hang, an endless read or a traceback.

One entry per way a file is read, parametrized over the hostile kinds: the guarantee is "every entry point x every
kind", so a new reader belongs in ENTRY_POINTS (``tests/test_safefile.py`` makes sure it reads through the module).
A regression that blocks on a FIFO fails on the timeout instead of hanging the suite.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

#: what each hostile kind's refusal says (the reason ``tenantdeck.safefile`` gives, in whatever words wrap it)
SAYS = {"fifo": "named pipe (FIFO)", "device": "character device", "directory": "is a directory"}


def zero_device(folder: Path) -> Path:
    """A device that reads as endless zeros. As root, a private one made in ``folder`` (``mknod``): a regression
    that writes through a link to a device would replace the node it points at, and the real ``/dev/zero`` of a
    shared machine must never be the one (that happened once, through the theme cache's atomic write). Otherwise
    ``/dev/zero`` itself, which a non-root user cannot replace."""
    if os.geteuid() != 0:
        return Path("/dev/zero")
    node = folder / "zero-device"
    if not node.exists():
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 5))
    return node


def make_hostile(path: Path, kind: str, folder: Path | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to(zero_device(folder or path.parent))
    else:
        path.mkdir()


def _outcome(call: Callable[[], object]) -> str:
    """What a reader made of the file: its result or the error it raised, as text (a traceback type other than the
    module's refusal and the callers' documented errors fails the test)."""
    from tenantdeck.draft.configyaml import ConfigFileError
    from tenantdeck.draft.target_overrides import TargetOverridesInvalid
    from tenantdeck.safefile import FileRefused
    from tenantdeck.sync.workspace.lockfile import LockFileError
    from tenantdeck.sync.workspace.state import WorkspaceError
    from tenantdeck.targets import ProfileError

    try:
        return repr(call())
    except TargetOverridesInvalid as exc:
        return " ".join(p.render() for p in exc.problems)
    except (FileRefused, ConfigFileError, LockFileError, WorkspaceError, ProfileError) as exc:
        return str(exc)


@dataclass(frozen=True)
class Entry:
    name: str
    #: the file made hostile, relative to the test's folder (``draft.yaml`` is a valid draft beside it)
    file: str
    read: Callable[[Path], object]
    #: a cache: refusing it means "not cached" (nothing to say), as long as it is quick
    cache: bool = False


def _draft(tmp: Path) -> object:
    from tenantdeck.draft import load_draft

    return [p.render() for p in load_draft(tmp / "hostile.yaml").problems]


def _session(tmp: Path) -> object:
    from tenantdeck.draft.session import DraftSession

    return [p.render() for p in DraftSession.open(tmp / "hostile.yaml").problems]


def _workspace(tmp: Path) -> object:
    from tenantdeck.sync.workspace.state import Workspace

    return Workspace(tmp / "draft.yaml")


def _plan(tmp: Path) -> object:
    from tenantdeck.sync.remote.engine import _read_plan
    from tenantdeck.targets import Target

    refused = _read_plan(tmp / "plan.json", Target("test", "http://sandbox", "k", "s"))
    return getattr(refused, "summary", refused)


def _policies(tmp: Path) -> object:
    from tenantdeck.policies.model import load_policies

    return [p.render() for p in load_policies(tmp / "draft.policies.yaml").problems]


def _targets(tmp: Path) -> object:
    from tenantdeck.draft.target_overrides import read_target_overrides

    return read_target_overrides(tmp / "draft.yaml")


def _profiles(tmp: Path) -> object:
    from tenantdeck.targets import load_profiles

    return load_profiles(tmp / "config" / "profiles.yaml")


def _credentials(tmp: Path) -> object:
    from tenantdeck.targets import load_credentials_file

    return load_credentials_file(tmp / "config" / "credentials.yaml", "prod")


def _settings(tmp: Path) -> object:
    from tenantdeck.prefs import settings

    return settings.load(tmp / "config").problem


def _keymap(tmp: Path) -> object:
    from tenantdeck.prefs import keymap

    return keymap.load(tmp / "config").problems


def _theme(tmp: Path) -> object:
    from tenantdeck.prefs.themes import load_themes

    return [f.render() for f in load_themes(tmp / "config", None).failures]


def _theme_cache(tmp: Path) -> object:
    from tenantdeck.prefs.themes import load_themes

    return load_themes(tmp / "config", tmp / "theme-cache.json").failures


def _recovery(tmp: Path) -> object:
    from tenantdeck.draft import recovery

    return recovery.read(tmp / "recovery.yaml").problem


def _lock_file(tmp: Path) -> object:
    from tenantdeck.sync.workspace import lockfile

    return lockfile.read(tmp / "draft.lock.json")


def _journal(tmp: Path) -> object:
    from tenantdeck.sync.workspace.journal import read_journal

    return list(read_journal(tmp / "journal.jsonl"))


def _history(tmp: Path) -> object:
    from tenantdeck.sync.workspace.history import read_history

    return read_history(tmp / "history.jsonl")


def _secret_key(tmp: Path) -> object:
    return _workspace(tmp).secret_key()  # type: ignore[attr-defined]


def _meta(tmp: Path) -> object:
    return _workspace(tmp).read_meta()  # type: ignore[attr-defined]


def _lock_written(tmp: Path) -> object:
    return _workspace(tmp).lock_as_written()  # type: ignore[attr-defined]


def _draft_writes(tmp: Path) -> object:
    return _workspace(tmp).written_by_tool("a", "b")  # type: ignore[attr-defined]


def _lock_holder(tmp: Path) -> object:
    from tenantdeck.sync.workspace.lock import read_holder

    return read_holder(_workspace(tmp))  # type: ignore[arg-type]


def _insync(tmp: Path) -> object:
    from tenantdeck.sync.workspace.insync import InSyncCache

    return InSyncCache(_workspace(tmp))._entries  # type: ignore[arg-type]


def _certificate(tmp: Path) -> object:
    from tenantdeck.models.certfiles import read_certificate

    return read_certificate("certs/apns.p8", tmp)


def _gitignore(tmp: Path) -> object:
    from tenantdeck.gitignore import ensure_lines

    return ensure_lines(tmp / ".gitignore", [".tenantdeck/"], "# tenantdeck", beside=tmp)


def _compare_and_swap(tmp: Path) -> object:
    from tenantdeck.atomic import ChangedSinceRead, atomic_write_bytes

    try:
        atomic_write_bytes(tmp / "cas.yaml", b"new", expect=lambda current: True)
    except (ChangedSinceRead, OSError) as exc:
        return str(exc)
    return "written"


def _parse_cache(tmp: Path) -> object:
    from tenantdeck.draft import parsecache

    # the cache folder is shared by the suite's workers: an entry of this test's own (its tmp path in the text), or
    # two kinds run at once on two workers made and removed the same file (FileNotFoundError in one of them)
    text = f"# {tmp}\n" + "x" * parsecache.MIN_CHARS
    target = parsecache.directory() / f"{parsecache._key(text)}.marshal"
    if target.is_symlink() or target.exists():
        os.rename(target, tmp / "moved")
    make_hostile(target, KIND[0], tmp)
    try:
        return parsecache.load(text)
    finally:
        target.rmdir() if target.is_dir() and not target.is_symlink() else target.unlink()


KIND = ["fifo"]  # the parse cache lives outside tmp: its entry makes its own hostile file

ENTRY_POINTS = [
    Entry("draft (validate, diff, plan, push)", "hostile.yaml", _draft),
    Entry("draft (the editor's session)", "hostile.yaml", _session),
    Entry("policies file", "draft.policies.yaml", _policies),
    Entry("targets file", "draft.targets.yaml", _targets),
    Entry("profiles.yaml", "config/profiles.yaml", _profiles),
    Entry("credentials file", "config/credentials.yaml", _credentials),
    Entry("settings", "config/settings.yaml", _settings),
    Entry("keymap", "config/keymap.yaml", _keymap),
    Entry("theme file", "config/themes/mine.yaml", _theme),
    Entry("recovery file", "recovery.yaml", _recovery),
    Entry("lock file", "draft.lock.json", _lock_file),
    Entry("journal", "journal.jsonl", _journal),
    Entry("history", "history.jsonl", _history),
    Entry("saved plan", "plan.json", _plan),
    Entry("workspace secret key", ".tenantdeck/draft/secret.key", _secret_key),
    Entry("workspace meta.json", ".tenantdeck/draft/meta.json", _meta),
    Entry("certificate", "certs/apns.p8", _certificate),
    Entry(".gitignore beside the draft", ".gitignore", _gitignore),
    Entry("compare-and-swap write", "cas.yaml", _compare_and_swap),
    Entry("lock-written mark", ".tenantdeck/draft/lock-written.json", _lock_written, cache=True),
    Entry("draft writes record", ".tenantdeck/draft/draft-writes.jsonl", _draft_writes, cache=True),
    Entry("lock holder record", ".tenantdeck/draft/lock-holder.json", _lock_holder, cache=True),
    Entry("in-sync cache", ".tenantdeck/draft/insync.json", _insync, cache=True),
    Entry("theme cache", "theme-cache.json", _theme_cache, cache=True),
]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "draft.yaml").write_text("format: 1\napps: []\n", encoding="utf-8")
    (tmp_path / "config").mkdir()
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    (tmp_path / "cas.yaml").write_bytes(b"old")
    return tmp_path


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", sorted(SAYS))
@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=lambda e: e.name)
def test_a_hostile_file_is_a_clear_error_in_bounded_time(entry: Entry, kind: str, folder: Path) -> None:
    target = folder / entry.file
    if entry.file == "cas.yaml":
        target.unlink()
    if entry.read is _meta or entry.read is _secret_key:
        _workspace(folder).root.mkdir(parents=True, exist_ok=True)  # type: ignore[attr-defined]
    make_hostile(target, kind, folder)
    outcome = _outcome(lambda: entry.read(folder))
    if entry.cache:
        return  # bounded time (the timeout) and no traceback (_outcome) is the promise for a cache
    if kind == "device" and zero_device(folder) == Path("/dev/zero") and "outside the draft's folder" in outcome:
        return  # not root: the link leads to the real /dev/zero, which a file beside the draft may not (L3)
    assert SAYS[kind] in outcome, outcome


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", sorted(SAYS))
def test_a_hostile_parse_cache_entry_is_a_miss(kind: str, tmp_path: Path) -> None:
    KIND[0] = kind
    assert _parse_cache(tmp_path) is None


@pytest.mark.timeout(20)
def test_a_certificate_that_leads_outside_the_drafts_folder_is_refused(tmp_path: Path) -> None:
    from tenantdeck.models.certfiles import ENV_DIRS, read_certificate
    from tenantdeck.safefile import FileRefused

    (tmp_path / "outside.p8").write_bytes(b"key")
    repo = tmp_path / "repo"
    (repo / "certs").mkdir(parents=True)
    (repo / "certs" / "link.p8").symlink_to(tmp_path / "outside.p8")
    for written in ("certs/link.p8", "../outside.p8", str(tmp_path / "outside.p8")):
        with pytest.raises(FileRefused, match="outside the draft's folder"):
            read_certificate(written, repo, {})
        assert read_certificate(written, repo, {ENV_DIRS: str(tmp_path)}) == b"key"  # the explicit opt-in
    with pytest.raises(FileRefused, match="outside the draft's folder"):  # a relative folder is not an opt-in
        read_certificate("../outside.p8", repo, {ENV_DIRS: ".."})


@pytest.mark.timeout(20)
def test_a_write_through_a_link_to_a_device_replaces_nothing(tmp_path: Path) -> None:
    """Found by the test above, as root: the atomic write followed a link to /dev/zero and renamed a file over the
    device node. A link to anything but a regular file is now refused before anything is written."""
    from tenantdeck.atomic import atomic_write_bytes, unwritable_reason

    device = zero_device(tmp_path)
    link = tmp_path / "theme-cache.json"
    link.symlink_to(device)
    with pytest.raises(OSError, match="character device"):
        atomic_write_bytes(link, b"{}")
    assert stat.S_ISCHR(os.stat(device).st_mode)
    assert "character device" in str(unwritable_reason(link))
