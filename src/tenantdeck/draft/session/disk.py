"""The file under the session: reading its bytes, telling whether someone else changed it, and writing it.

:class:`DiskWatch` owns what the session knows of the file: the text it stands on (read or last saved), and that
text's ``stat`` and hash. A save is a compare-and-swap against that text (:func:`write`), so another writer
between the check and the write is caught, not overwritten. It also keeps the file the path led to when the session
opened it: a save never writes through a symbolic link put in the draft's place since (:class:`Redirected`).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from tenantdeck import safefile
from tenantdeck.draft import yamlsource
from tenantdeck.draft.session.errors import CHANGED_ON_DISK, ChangedOnDisk, DraftSessionError
from tenantdeck.problems import Problem


@dataclass(frozen=True, slots=True)
class SaveResult:
    """What a save did. ``method`` is "splice" when only changed values were rewritten, "ruamel" when some edit
    since the last save needed the ruamel.yaml merge, "unchanged" when there was nothing to write."""

    path: str
    method: str
    bytes_written: int


class Redirected(DraftSessionError):
    """The draft's path now leads to another file than the one the session opened (a symbolic link was put in its
    place, or re-aimed): a save would write there, so nothing is written. The message names the link and where it
    leads (plain text: the UI escapes it)."""


class DiskWatch:
    """What the session knows of its file: ``base_text`` (the text last read or saved: the session is dirty when
    its text differs), the ``stat`` and sha256 of those bytes, and the last stat that differed with its verdict."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.base_text = ""
        self._stat: tuple[int, int, int] | None = None
        self._sha: str | None = None  #: sha256 of the bytes read or last saved (None: not known yet)
        self._seen: tuple[tuple[int, int, int], bool] | None = None  #: last stat that differed, and its verdict
        self.opened: str | None = None  #: the file the path led to when the session first read it (after links)

    def remember(self, raw: bytes | None) -> None:
        """Note the file's stat and the hash of ``raw``, the bytes the session now stands on (read or written).

        The first call also notes the file the path leads to: the draft as opened, the only file a save may write
        (a reload through a link swapped in since does not make that link's target the draft)."""
        if self.opened is None:
            from tenantdeck.atomic import leads_to

            self.opened = os.fspath(leads_to(self.path))
        try:
            st = os.stat(self.path)
            self._stat = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            self._stat = None
        self._sha = hashlib.sha256(raw).hexdigest() if raw is not None else None
        self._seen = None

    def changed(self) -> bool:
        """True when the file no longer holds what was read or last saved (see
        :meth:`DraftSession.changed_on_disk <tenantdeck.draft.session.DraftSession.changed_on_disk>`)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return self._stat is not None
        except OSError:
            return True
        now = (st.st_mtime_ns, st.st_size, st.st_ino)
        if now == self._stat:
            return False
        if self._seen is not None and self._seen[0] == now:
            return self._seen[1]
        try:
            sha = file_sha256(self.path)
        except OSError:
            return True
        if self._sha is None and self._stat is None:
            self._sha = sha  # nothing was known about the file (unreadable at open): this is it now
        same = sha == self._sha
        if same:
            self._stat = now
            self._seen = None
        else:
            self._seen = (now, True)
        return not same

    def write(self, text: str, *, force: bool, backup: bool, file: str) -> bytes:
        """Write ``text`` atomically unless the file no longer holds :attr:`base_text` (``force``: regardless);
        then it is the new base. Returns the bytes written; raises :class:`ChangedOnDisk`, writing nothing."""
        from tenantdeck import atomic
        from tenantdeck.draft.save import still

        data = text.encode("utf-8")
        try:
            # compare-and-swap: the caller's check and this write are apart; another writer may come between
            atomic.atomic_write_bytes(self.path, data, backup=backup, expect=None if force else still(self.base_text),
                                      leads_to=self.opened)
        except atomic.ChangedSinceRead:
            raise ChangedOnDisk(CHANGED_ON_DISK, (), file, "changed-on-disk") from None
        except atomic.Redirected as exc:
            raise Redirected(str(exc), (), file, "redirected") from None
        self.base_text = text
        self.remember(data)
        return data

    def redirected(self) -> str:
        """Why a save would be refused for where the path now leads (a link put in the draft's place since it was
        opened), naming the link and its target; "" when it still leads to the file opened."""
        from tenantdeck import atomic

        moved = atomic.redirected(self.path, self.opened) if self.opened is not None else None
        return "" if moved is None else str(moved)


def read_bytes(path: str, name: str, max_bytes: int) -> tuple[bytes | None, list[Problem]]:
    """The file's bytes, or the same problems :func:`yamlsource.read_text` reports (both read through
    :mod:`tenantdeck.safefile`: a FIFO or a device is a problem, not a hang)."""
    try:
        return safefile.read_bytes(path, max_bytes), []
    except OSError:
        return None, yamlsource.read_text(path, display=name, max_bytes=max_bytes)[1]


def file_sha256(path: str) -> str:
    """The file's sha256, read in 1 MiB pieces (a draft of tens of MB is never held twice in memory); a file
    that is no longer a regular one raises :class:`~tenantdeck.safefile.FileRefused` (an ``OSError``)."""
    digest = hashlib.sha256()
    with safefile.open_regular(path) as (fh, _):
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
