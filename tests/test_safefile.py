"""``tenantdeck.safefile``: a file is read only when it is a regular file, with a bound, never by an open that
blocks; and no module of ``src/`` reads a file another way (the architecture test below reads every call)."""

from __future__ import annotations

import ast
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import tenantdeck
from tenantdeck import safefile
from tenantdeck.safefile import FileMissing, FileRefused

ROOT = Path(tenantdeck.__file__).parent


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.timeout(10)
def test_a_fifo_is_refused_without_waiting_for_a_writer(fifo: Path) -> None:
    with pytest.raises(FileRefused) as caught:
        safefile.read_bytes(fifo, 100)
    assert caught.value.code == safefile.NOT_REGULAR and "named pipe (FIFO)" in str(caught.value)


def test_a_device_is_refused_without_being_read() -> None:
    with pytest.raises(FileRefused) as caught:
        safefile.read_bytes("/dev/zero", 100)
    assert caught.value.code == safefile.NOT_REGULAR and "character device" in caught.value.reason


def test_a_directory_and_a_socket_are_refused(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match="is a directory"):
        safefile.read_bytes(tmp_path, 100)
    sock_path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        with pytest.raises(FileRefused, match="is a socket"):
            safefile.read_bytes(sock_path, 100)


def test_a_missing_file_is_also_a_file_not_found_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        safefile.read_bytes(tmp_path / "nope", 100)
    assert isinstance(caught.value, FileMissing) and caught.value.code == safefile.MISSING
    (tmp_path / "dangling").symlink_to(tmp_path / "nope")
    with pytest.raises(FileMissing):
        safefile.read_bytes(tmp_path / "dangling", 100)


def test_over_the_cap_is_too_large_and_at_the_cap_is_read(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 101)
    with pytest.raises(FileRefused) as caught:
        safefile.read_bytes(path, 100)
    assert caught.value.reason == "too large (101 bytes; at most 100)" and caught.value.code == safefile.TOO_LARGE
    assert safefile.read_bytes(path, 101) == b"x" * 101


def test_the_bound_holds_whatever_stat_says() -> None:
    """/proc files are regular and report a size of 0; the read still stops at the cap plus one byte."""
    status = Path("/proc/self/status")
    if not status.exists() or status.stat().st_size != 0:
        pytest.skip("no /proc here")
    with pytest.raises(FileRefused, match=r"too large \(more than 10 bytes; at most 10\)"):
        safefile.read_bytes(status, 10)


def test_within_refuses_a_link_or_dots_that_lead_outside(tmp_path: Path) -> None:
    inside, outside = tmp_path / "repo", tmp_path / "secret"
    inside.mkdir()
    outside.write_bytes(b"s3cret")
    (inside / "ok").write_bytes(b"fine")
    (inside / "link").symlink_to(outside)
    (inside / "up").symlink_to("..")
    assert safefile.read_bytes(inside / "ok", 100, within=[inside]) == b"fine"
    for path in (inside / "link", inside / ".." / "secret", inside / "up" / "secret"):
        with pytest.raises(FileRefused) as caught:
            safefile.read_bytes(path, 100, within=[inside], what="the draft's folder")
        assert caught.value.code == safefile.OUTSIDE and "outside the draft's folder" in caught.value.reason
    assert safefile.read_bytes(inside / "link", 100, within=[inside, tmp_path]) == b"s3cret"


def test_locate_within_names_the_folder_resolve_within_allows(tmp_path: Path) -> None:
    """One walk of the allowed folders: the folder a caller's own rule is checked against (certfiles: no hidden
    part below it) is the innermost one the path resolves into, the one the read is allowed from."""
    repo, extra = tmp_path / "repo", tmp_path / "extra"
    (repo / "certs").mkdir(parents=True)
    extra.mkdir()
    (extra / "k.p8").write_bytes(b"k")
    (repo / "certs" / "link.p8").symlink_to(extra / "k.p8")
    real = (extra / "k.p8").resolve()
    assert safefile.locate_within(repo / "certs" / "link.p8", [repo, extra]) == (real, extra.resolve())
    assert safefile.locate_within(repo / "certs" / "link.p8", [tmp_path, extra]) == (real, extra.resolve())
    assert safefile.locate_within(repo / "certs" / "link.p8", [extra, tmp_path]) == (real, extra.resolve())
    assert safefile.locate_within(repo / "certs" / "link.p8", [repo]) == (real, None)
    assert safefile.locate_within(repo, [repo]) == (repo.resolve(), repo.resolve())
    assert safefile.resolve_within(repo / "certs" / "link.p8", [repo, extra]) == real


@pytest.mark.timeout(10)
def test_a_fifo_swapped_in_after_the_check_is_caught_by_fstat(fifo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What is read is what was opened: the check of the path alone could be raced."""
    real_stat = os.stat
    monkeypatch.setattr(safefile.os, "stat", lambda p, *a, **k: real_stat(__file__) if p == fifo else real_stat(p))
    with pytest.raises(FileRefused, match="named pipe"):
        safefile.read_bytes(fifo, 100)


def test_a_writer_on_a_fifo_does_not_make_it_readable(fifo: Path) -> None:
    done = threading.Event()

    def writer() -> None:
        fd = os.open(fifo, os.O_RDWR)  # never blocks; keeps a writer present
        done.wait(5)
        os.close(fd)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        with pytest.raises(FileRefused, match="named pipe"):
            safefile.read_bytes(fifo, 100)
    finally:
        done.set()
        thread.join()


# -- no read in src/ bypasses the module ---------------------------------------------------------------------------

#: reads that are not of a file a user, a repository or the service controls; each says why it may stay
ALLOWED: dict[tuple[str, str], str] = {
    ("tenantdeck/safefile.py", "os.open(target, _FLAGS)"): "the module itself",
    ("tenantdeck/safefile.py", "os.fdopen(fd, 'rb')"): "the module itself",
    ("tenantdeck/atomic.py", "os.open(directory, os.O_RDONLY)"):
        "opens a directory to fsync it after a rename; nothing is read",
    ("tenantdeck/cli/edit_cmd.py", "files('tenantdeck').joinpath('data/demo.policies.yaml').read_text(encoding="
                                   "'utf-8')"): "package data installed with tenantdeck, not a user's file",
}

_WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}


def _mode(call: ast.Call, position: int) -> str | None:
    """The mode a call passes (positional ``position`` or ``mode=``), "" when none, None when not a literal."""
    node = call.args[position] if len(call.args) > position else next(
        (k.value for k in call.keywords if k.arg == "mode"), None)
    if node is None:
        return ""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _reads_for_reading(mode: str | None) -> bool:
    return mode is not None and not set(mode) & set("wax+")


def file_reads(tree: ast.AST) -> Iterator[ast.Call]:
    """Every call that opens or reads a file by path: ``open(p)``, ``io.open(p)``, ``Path.open()``,
    ``Path.read_text()``/``read_bytes()``, ``os.open(p, O_RDONLY...)``, ``os.fdopen(fd, "rb")`` (writes are
    :mod:`tenantdeck.atomic`'s business)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            if _reads_for_reading(_mode(node, 1)):
                yield node
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else None
            if func.attr in ("read_text", "read_bytes") and not node.args:
                yield node  # pathlib's (a module function of that name takes the path as an argument)
            elif func.attr == "open" and owner == "os":
                flags = {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)} if len(
                    node.args) > 1 else set()
                if not flags & _WRITE_FLAGS:
                    yield node
            elif (func.attr, owner) in (("fdopen", "os"), ("open", "io"), ("open", "codecs")):
                if _reads_for_reading(_mode(node, 1)):
                    yield node
            elif (func.attr == "open" and (not node.args or isinstance(node.args[0], ast.Constant))
                  and _reads_for_reading(_mode(node, 0))):
                yield node  # Path.open() / Path.open("rb") (DraftSession.open(path) takes a path)


def bypassing_reads() -> list[str]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).as_posix()
        for call in file_reads(ast.parse(path.read_text(encoding="utf-8"))):
            text = ast.unparse(call)
            if (rel, text) not in ALLOWED:
                found.append(f"{rel}:{call.lineno}: {text}")
    return found


def test_every_file_read_in_src_goes_through_safefile() -> None:
    """A new read must use ``tenantdeck.safefile`` (or be added to ALLOWED with the reason it is not a file anyone
    else controls)."""
    assert bypassing_reads() == []


def test_every_allowed_read_still_exists() -> None:
    """An allow-list entry whose call went away is removed, not kept as a silent exception."""
    present = set()
    for rel, _ in ALLOWED:
        for call in file_reads(ast.parse((ROOT.parent / rel).read_text(encoding="utf-8"))):
            present.add((rel, ast.unparse(call)))
    assert set(ALLOWED) <= present


@pytest.mark.parametrize("code", [
    "open(p)", "open(p, 'rb')", "open(p, encoding='utf-8')", "io.open(p)", "p.read_text(encoding='utf-8')",
    "p.read_bytes()", "p.open()", "p.open('rb')", "os.open(p, os.O_RDONLY)", "os.fdopen(fd, 'rb')",
])
def test_the_scan_sees_each_way_of_reading(code: str) -> None:
    assert [ast.unparse(c) for c in file_reads(ast.parse(code))] == [code.replace('"', "'")]


@pytest.mark.parametrize("code", [
    "open(p, 'w')", "open(p, 'ab')", "os.open(p, os.O_WRONLY | os.O_CREAT)", "os.fdopen(fd, 'wb')",
    "yamlsource.read_text(p, display=n)", "DraftSession.open(p)", "safefile.read_bytes(p, 10)",
])
def test_the_scan_leaves_writes_and_other_calls_alone(code: str) -> None:
    assert list(file_reads(ast.parse(code))) == []


# -- no write in src/ leaves the draft's folder ------------------------------------------------------------------

#: the functions that write a file by path: tenantdeck's own (:mod:`tenantdeck.atomic`, the draft's ``write_atomic``)
_WRITERS = {"atomic_write_bytes", "atomic_write_text", "atomic_write_json", "write_atomic", "open_append",
            "make_dirs", "ensure_lines", "append_record", "write_text", "write_bytes", "mkdir", "makedirs", "touch",
            "replace", "rename", "link", "symlink", "FileLock", "Journal", "new"}
#: a path argument that is already checked: the write goes where :func:`tenantdeck.atomic.in_folder` said
_CHECKED_PATHS = {"in_folder", "safefile.beside", "beside"}

#: modules that write no file of a draft's folder, or whose writes are the rule itself, and why
WRITE_ALLOWED: dict[tuple[str, str], str] = {
    ("tenantdeck/atomic.py", "*"): "the writes themselves: in_folder checks every write given beside=",
    ("tenantdeck/safefile.py", "*"): "the rule itself (it writes nothing)",
    ("tenantdeck/sandbox/ddl.py", "*"): "the embedded sandbox's database in the data directory, not a draft's folder",
    ("tenantdeck/prefs/themes.py", "atomic_write_json"): "the theme cache in the user's cache directory",
    ("tenantdeck/prefs/settings.py", "atomic_write_text"): "settings.yaml in the user's config directory",
    ("tenantdeck/draft/recovery.py", "atomic_write_text"): "recovery files in the user's data directory",
    ("tenantdeck/draft/recovery.py", "os.replace"): "recovery files in the user's data directory",
    ("tenantdeck/draft/parsecache.py", "folder.mkdir"): "the parse cache in the user's cache directory",
    ("tenantdeck/draft/parsecache.py", "atomic_write_bytes"): "the parse cache in the user's cache directory",
    ("tenantdeck/draft/save.py", "atomic_write_text"): "the draft itself (a link to it is followed on purpose; "
                                                       "leads_to refuses one swapped in since it was read)",
    ("tenantdeck/draft/save.py", "write_atomic"): "the draft itself, as above",
    ("tenantdeck/draft/session/disk.py", "atomic.atomic_write_bytes"): "the draft itself, as above",
    ("tenantdeck/cli/init_cmd.py", "write_atomic"): "the draft itself, as above",
    ("tenantdeck/cli/plan_cmd.py", "atomic_write_bytes"): "plan -o FILE: the file the user names",
    ("tenantdeck/tui/screens/events_screen.py", "atomic_write_text"): "the export file the user names",
    ("tenantdeck/cli/demo_cmd.py", "workdir.mkdir"): "the demo's own folder, made by tenantdeck",
    ("tenantdeck/cli/edit_cmd.py", "path.write_text"): "the demo's policies, in the folder tenantdeck just made",
    ("tenantdeck/sync/workspace/lock.py", "filelock.FileLock"):
        "the flock file: check_workspace, just before, refuses a link there (state.IN_PLACE)",
    ("tenantdeck/tui/tabs/widget_preview.py", "open"): "os.devnull",
}


def _writes(tree: ast.AST) -> Iterator[ast.Call]:
    """Every call that writes, creates or renames a file or folder by path (reads are :func:`file_reads`)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name == "open" and isinstance(func, ast.Name | ast.Attribute):
            owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
            if owner == "os":
                flags = {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)} if len(
                    node.args) > 1 else set()
                if flags & _WRITE_FLAGS:
                    yield node
            elif owner in (None, "io", "codecs"):
                if not _reads_for_reading(_mode(node, 1)):
                    yield node
            elif (not node.args or isinstance(node.args[0], ast.Constant)) and not _reads_for_reading(
                    _mode(node, 0)):
                yield node  # Path.open("w") (DraftSession.open(path) takes a path)
        elif name in _WRITERS:
            if name == "replace" and not (isinstance(func, ast.Attribute) and ast.unparse(func.value) == "os"):
                continue  # str.replace
            if name in ("link", "symlink", "rename") and not ast.unparse(func).startswith("os."):
                continue
            if name == "new" and ast.unparse(func) != "Journal.new":
                continue
            yield node


def _checked(call: ast.Call) -> bool:
    if any(k.arg == "beside" for k in call.keywords):
        return True
    first = call.args[0] if call.args else None
    return isinstance(first, ast.Call) and ast.unparse(first.func) in _CHECKED_PATHS


def unchecked_writes() -> list[str]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).as_posix()
        if (rel, "*") in WRITE_ALLOWED:
            continue
        for call in _writes(ast.parse(path.read_text(encoding="utf-8"))):
            if not _checked(call) and (rel, ast.unparse(call.func)) not in WRITE_ALLOWED:
                found.append(f"{rel}:{call.lineno}: {ast.unparse(call)}")
    return found


def test_every_write_in_src_keeps_to_the_drafts_folder_or_says_why_not() -> None:
    """Trial L, L3: a write beside a draft passes ``beside=`` (the draft's folder: :func:`tenantdeck.safefile.beside`
    is then checked before anything is made, and a link is replaced, not followed), or writes where the user or
    tenantdeck chose and is listed in WRITE_ALLOWED with why."""
    assert unchecked_writes() == []


def test_every_allowed_write_still_exists() -> None:
    present = set()
    for rel, callee in WRITE_ALLOWED:
        if callee != "*":
            present |= {(rel, ast.unparse(c.func)) for c in _writes(ast.parse((ROOT.parent / rel).read_text(
                encoding="utf-8")))}
    assert {k for k in WRITE_ALLOWED if k[1] != "*"} <= present


@pytest.mark.parametrize("code", [
    "open(p, 'w')", "open(p, 'ab')", "p.open('w')", "os.open(p, os.O_WRONLY | os.O_CREAT)", "p.write_text(t)",
    "p.write_bytes(b)", "p.mkdir(parents=True)", "os.replace(a, b)", "atomic_write_json(p, {})",
    "atomic.atomic_write_bytes(p, b)", "filelock.FileLock(k)", "Journal.new(d, h)", "append_record(p, x=1)",
])
def test_the_write_scan_sees_each_way_of_writing(code: str) -> None:
    tree = ast.parse(code)
    assert [ast.unparse(c) for c in _writes(tree)] == [code]
    assert not _checked(next(iter(_writes(tree))))


@pytest.mark.parametrize("code", ["atomic_write_json(p, {}, beside=f)", "os.open(in_folder(p, f), os.O_WRONLY)"])
def test_a_write_that_passes_the_drafts_folder_is_checked(code: str) -> None:
    assert all(_checked(c) for c in _writes(ast.parse(code)))


def test_a_write_beside_a_draft_replaces_a_link_inside_and_refuses_one_out(tmp_path: Path) -> None:
    from tenantdeck.atomic import atomic_write_bytes, open_append

    folder, outside = tmp_path / "repo", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "other.json").write_bytes(b"other")
    (folder / "lock.json").symlink_to("other.json")
    atomic_write_bytes(folder / "lock.json", b"new", beside=folder)
    assert not (folder / "lock.json").is_symlink() and (folder / "lock.json").read_bytes() == b"new"
    assert (folder / "other.json").read_bytes() == b"other"
    (folder / "out.json").symlink_to(outside / "made.json")
    (folder / "dir").symlink_to(outside)
    for path in (folder / "out.json", folder / "dir" / "x.json", folder / ".." / "outside" / "y.json"):
        with pytest.raises(FileRefused) as caught:
            atomic_write_bytes(path, b"x", beside=folder, make_parents=True)
        assert caught.value.code == safefile.OUTSIDE and "outside the draft's folder" in str(caught.value)
        with pytest.raises(FileRefused):
            open_append(path, beside=folder)
    assert list(outside.iterdir()) == []
    (folder / "log").symlink_to("other.json")
    with pytest.raises(FileRefused, match="is a symbolic link"):
        open_append(folder / "log", beside=folder)
    assert (folder / "other.json").read_bytes() == b"other"
