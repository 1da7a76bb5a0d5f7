"""Every file tenantdeck reads is opened here: a regular file, read with a bound, never opened in a way that blocks.

A path in a draft, a repository or a config folder can name anything: ``certs/apns.p8 -> /dev/zero`` reports a
size of 0 to ``stat`` and never ends; a FIFO blocks ``open()`` until a writer comes (forever, in CI); a socket
cannot be opened at all; a directory reads as an error deep inside a parser; a symbolic link can lead out of the
draft's folder to ``/etc/shadow`` or a CI runner's cloud credentials. So a read here

1. checks the path with ``stat`` (following links) and refuses anything but a regular file before opening it (a
   device is never opened, so opening has no side effect such as rewinding a tape);
2. opens with ``O_NONBLOCK | O_NOCTTY`` (a FIFO swapped in after the check does not block the open, a terminal
   does not become the controlling one) and checks the opened descriptor with ``fstat`` again (what was opened is
   what is read, whatever the path now names);
3. reads at most ``cap + 1`` bytes whatever ``stat`` said, and says "too large" when there were more;
4. with ``within``: resolves the path after every symbolic link (``realpath``) and refuses it unless it lies in
   one of the given folders, then opens the resolved path.

**Beside a draft** (the lock file, the policies and targets files, ``.gitignore``, everything under
``.tenantdeck/``) the folder is always the draft's (:func:`draft_folder`): ``beside=`` a read here, and the same
``beside=`` given to :mod:`tenantdeck.atomic`'s writes, appends and folder creation, is the one rule (:func:`beside`)
that a pull request's ``tenantdeck.lock.json -> /home/ci/.bashrc`` is neither read nor written. Every write in
``src/`` passes it or says why it need not (``tests/test_safefile.py``).

Every refusal is a :class:`FileRefused` (an ``OSError``, so a caller that already handled "cannot read" still
does) carrying the path, a human ``reason`` and a stable ``code``; :class:`FileMissing` is also a
``FileNotFoundError``. ``tests/test_safefile.py`` proves that no module of ``src/`` reads a file another way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, Final

#: open flags of every read: no blocking on a FIFO, no controlling terminal, not inherited by a child process
_FLAGS: Final = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)

#: the bound of a file tenantdeck writes itself (plan, journal, history, lock file, cache): big only when a fleet
#: is (a 32 MiB draft's plan is a few times that); the bound stops a device or a runaway, never a real file
STATE_MAX_BYTES: Final = 256 * 1024 * 1024

#: ``code`` of each refusal: what a caller or a JSON reader can branch on
MISSING: Final = "missing"
NOT_REGULAR: Final = "not-regular"
TOO_LARGE: Final = "too-large"
OUTSIDE: Final = "outside"
UNREADABLE: Final = "unreadable"
EMPTY: Final = "empty"

#: the folder the files beside a draft must lie in, as a refusal names it
DRAFT_FOLDER: Final = "the draft's folder"


class FileRefused(OSError):
    """A file that was not read (or not opened): ``path``, ``reason`` (a phrase: "is a named pipe (FIFO), not a
    regular file"), ``code`` (one of the module's constants) and, for "too large", the ``size`` seen (a lower bound
    when the file grew while read). ``str()`` is ``PATH: reason``."""

    def __init__(self, path: str | os.PathLike[str], reason: str, code: str, *, size: int | None = None,
                 err: int = errno.EINVAL) -> None:
        super().__init__(err, reason, os.fspath(path))
        self.path = os.fspath(path)
        self.reason = reason
        self.code = code
        self.size = size

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class FileMissing(FileRefused, FileNotFoundError):
    """No file at the path (or a dangling link): ``except FileNotFoundError`` catches it too."""


def kind_of(mode: int) -> str | None:
    """Why a file of this ``st_mode`` is not read (None: a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory, not a file"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO), not a regular file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    if stat.S_ISCHR(mode):
        return "is a character device (such as /dev/zero), not a regular file"
    if stat.S_ISBLK(mode):
        return "is a block device, not a regular file"
    return "is not a regular file"


def too_large(path: str | os.PathLike[str], size: int, cap: int, *, at_least: bool = False) -> FileRefused:
    """The one wording of "over the cap": ``too large (N bytes; at most CAP)``."""
    seen = f"more than {cap}" if at_least else str(size)
    return FileRefused(path, f"too large ({seen} bytes; at most {cap})", TOO_LARGE, size=size, err=errno.EFBIG)


def _refused(path: str | os.PathLike[str], exc: OSError) -> FileRefused:
    if isinstance(exc, FileRefused):
        return exc
    if isinstance(exc, FileNotFoundError | NotADirectoryError):
        return FileMissing(path, "no such file", MISSING, err=errno.ENOENT)
    if exc.errno == errno.ELOOP:
        return FileRefused(path, "a symbolic link loop (too many levels of links)", UNREADABLE, err=errno.ELOOP)
    if exc.errno == errno.ENXIO:  # a socket, or a FIFO with no writer opened for writing
        return FileRefused(path, "is not a regular file (no such device or address)", NOT_REGULAR, err=errno.ENXIO)
    return FileRefused(path, f"cannot read it: {exc.strerror or type(exc).__name__}", UNREADABLE,
                       err=exc.errno or errno.EIO)


def locate_within(path: str | os.PathLike[str],
                  within: Sequence[str | os.PathLike[str]]) -> tuple[Path, Path | None]:
    """``path`` after every symbolic link, and the innermost of the folders ``within`` (each resolved the same way)
    that it is or lies inside, resolved (None: none of them). The one walk of the allowed folders: a caller with a
    rule of its own about where inside the folder a file lies (no hidden part, for a certificate) asks this, so
    its folder is the one :func:`resolve_within` let the file be read from. The innermost, because a folder named
    on purpose (``TENANTDECK_CERTIFICATE_DIRS=repo/.certs``) is allowed as a whole, while the draft's folder
    around it still hides ``repo/.git``."""
    real = Path(os.path.realpath(path))
    found = [base for base in (Path(os.path.realpath(root)) for root in within)
             if real == base or base in real.parents]
    return real, max(found, key=lambda base: len(base.parts), default=None)


def resolve_within(path: str | os.PathLike[str], within: Sequence[str | os.PathLike[str]],
                   what: str = "the allowed folders") -> Path:
    """``path`` after every symbolic link, when it lies inside one of the folders ``within`` (each resolved the
    same way, :func:`locate_within`); :class:`FileRefused` (``outside``) when it does not. ``what`` names the
    folders in the reason."""
    real, base = locate_within(path, within)
    if base is None:
        raise FileRefused(path, f"resolves to {real}, outside {what}", OUTSIDE, err=errno.EACCES)
    return real


def draft_folder(draft_path: str | os.PathLike[str]) -> Path:
    """The folder every file tenantdeck keeps beside the draft ``draft_path`` must lie in after every link: the
    folder of the draft file as given, resolved (a draft that is itself a link into a project keeps its lock file
    and workspace beside the link, in the project)."""
    return Path(os.path.realpath(Path(draft_path).parent))


def beside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> Path:
    """The one rule of a file beside a draft, read or written: ``path`` after every symbolic link (of it and of the
    folders above it, ``..`` included) when that lies inside ``folder`` (the draft's folder, resolved the same
    way); :class:`FileRefused` (``outside``: ``resolves to /x, outside the draft's folder``) when it does not.
    A path that does not exist yet resolves as far as it exists, so a dangling link, or a ``.tenantdeck`` that
    links elsewhere, is refused before anything is created through it. A pull request can commit any of these
    files as a link, and git stores it as one."""
    return resolve_within(path, [folder], DRAFT_FOLDER)


def beside_or_none(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> FileRefused | None:
    """:func:`beside`'s refusal, or None when ``path`` keeps to ``folder``: for a check made before any write."""
    try:
        beside(path, folder)
    except FileRefused as exc:
        return exc
    return None


def _within(within: Sequence[str | os.PathLike[str]], what: str,
            folder: str | os.PathLike[str] | None) -> tuple[Sequence[str | os.PathLike[str]], str]:
    return ([folder], DRAFT_FOLDER) if folder is not None else (within, what)


@contextlib.contextmanager
def open_regular(path: str | os.PathLike[str], *, within: Sequence[str | os.PathLike[str]] = (),
                 what: str = "the allowed folders",
                 beside: str | os.PathLike[str] | None = None) -> Iterator[tuple[BinaryIO, int]]:
    """The opened regular file and its size (from ``fstat`` of what was opened), closed on exit; for a caller
    that streams (hashing) rather than reads into memory. Raises :class:`FileRefused` before yielding.
    ``beside``: the draft's folder, for a file kept beside a draft (:func:`beside`; ``within`` that folder)."""
    within, what = _within(within, what, beside)
    target = resolve_within(path, within, what) if within else path
    try:
        before = os.stat(target)
        reason = kind_of(before.st_mode)
        if reason is not None:
            raise FileRefused(path, reason, NOT_REGULAR, err=errno.EISDIR if stat.S_ISDIR(before.st_mode)
                              else errno.EINVAL)
        fd = os.open(target, _FLAGS)
    except OSError as exc:
        raise _refused(path, exc) from None
    try:
        now = os.fstat(fd)
        reason = kind_of(now.st_mode)
        if reason is not None:  # swapped between the check and the open
            raise FileRefused(path, reason, NOT_REGULAR)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle, now.st_size


def read_bytes(path: str | os.PathLike[str], cap: int, *, within: Sequence[str | os.PathLike[str]] = (),
               what: str = "the allowed folders", beside: str | os.PathLike[str] | None = None) -> bytes:
    """The file's bytes, at most ``cap`` of them: :class:`FileRefused` for anything else (missing, not a regular
    file, over ``cap``, outside ``within`` or the draft's folder ``beside``, unreadable). Never reads more than
    ``cap + 1`` bytes."""
    with open_regular(path, within=within, what=what, beside=beside) as (handle, size):
        if size > cap:
            raise too_large(path, size, cap)
        try:
            data = handle.read(cap + 1)
        except OSError as exc:
            raise _refused(path, exc) from None
    if len(data) > cap:
        raise too_large(path, len(data), cap, at_least=True)
    return data


def read_text(path: str | os.PathLike[str], cap: int, *, errors: str = "strict",
              within: Sequence[str | os.PathLike[str]] = (), what: str = "the allowed folders",
              beside: str | os.PathLike[str] | None = None) -> str:
    """:func:`read_bytes` decoded as UTF-8 (``errors`` as :meth:`bytes.decode`; a bad byte under "strict" raises
    ``UnicodeDecodeError``, which the caller words)."""
    return read_bytes(path, cap, within=within, what=what, beside=beside).decode("utf-8", errors=errors)


def check(path: str | os.PathLike[str], cap: int, *, within: Sequence[str | os.PathLike[str]] = (),
          what: str = "the allowed folders") -> int:
    """The size of the regular file at ``path`` (opened and checked as a read would, nothing read):
    :class:`FileRefused` when a read would refuse it for what it is, where it leads or its size."""
    with open_regular(path, within=within, what=what) as (_, size):
        if size > cap:
            raise too_large(path, size, cap)
        return size
