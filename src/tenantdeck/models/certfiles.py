"""The certificate files a draft names (``push_certificates: {p8: certs/apns.p8}``): where they may be, and reading
them.

A draft comes from a pull request as often as from its owner, and push uploads a certificate's bytes to the
vendor: a path that leads anywhere would let one symbolic link (``certs/apns.p8 -> ~/.kube/config``) or one
``../../`` upload a CI runner's secret. So a certificate is read only when its path, after every symbolic link,
lies inside the draft's folder, and it is a regular file of at most :data:`MAX_BYTES` (read through
:mod:`tenantdeck.safefile`: a FIFO or a device is refused, never waited on or read to its end).

Certificates kept elsewhere are allowed only by the person running the command: :data:`ENV_DIRS` names extra
folders (``os.pathsep``-separated absolute paths). It is read from the environment and nowhere else — never from
the draft, its targets or policies file, or any other file a repository holds.

Inside the folder, a certificate is never read from a hidden file or folder (a part of its path, after every link,
that starts with a dot): ``.git/config`` holds the token a CI checkout persists, ``.tenantdeck/`` the workspace's
secret key, ``.env`` the values of the draft's ``${VAR}``s; a link such as ``certs/apns.p8 -> ../.git/config``
passed every check above (trial J, J4). And what is read must look like what its key says before a byte of it is
sent: a ``.p8`` key is a PEM ``PRIVATE KEY`` block, a ``.p12`` bundle is DER (it starts with a SEQUENCE, byte
0x30). Only key material leaves the machine, whatever a path names.

One function, :func:`certificate_problems`, says what is wrong with an app's certificates (``validate``, the editor
and every command before any network call); :func:`read_certificate` reads the bytes that are fingerprinted and,
the same bytes, uploaded. Both apply every rule above.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Final

from tenantdeck import safefile
from tenantdeck.models.draft import resolve_beside
from tenantdeck.problems import PathPart, Problem, error

if TYPE_CHECKING:
    from tenantdeck.models.app import App

#: what the sandbox accepts, and more than any real APNs certificate or key needs
MAX_BYTES: Final = 64 * 1024
KINDS: Final = ("p12", "p8")
#: folders outside the draft's folder that certificates may be read from: set by whoever runs the command
ENV_DIRS: Final = "TENANTDECK_CERTIFICATE_DIRS"


def allowed_dirs(env: Mapping[str, str] | None = None) -> list[Path]:
    """The extra folders :data:`ENV_DIRS` names (absolute paths only: a relative one would depend on where the
    command runs, and is ignored)."""
    value = (os.environ if env is None else env).get(ENV_DIRS, "")
    return [Path(part) for part in value.split(os.pathsep) if part and os.path.isabs(part)]


def _roots(folder: Path | None, env: Mapping[str, str] | None) -> tuple[list[Path], str]:
    extra = allowed_dirs(env)
    what = "the draft's folder" + (f" and the folders {ENV_DIRS} names" if extra else "")
    return [folder if folder is not None else Path.cwd(), *extra], what


#: ``FileRefused.code`` of a file refused for where it leads (a hidden file or folder) or for what it holds
HIDDEN: Final = "hidden"
NOT_A_CERTIFICATE: Final = "not-a-certificate"
_PEM_KEY: Final = re.compile(rb"-----BEGIN PRIVATE KEY-----[A-Za-z0-9+/=\s]+-----END PRIVATE KEY-----")


def _hidden_part(path: Path, roots: list[Path]) -> str | None:
    """The first part of ``path`` (after every link) below the allowed folder it lies in that starts with a dot.
    The folder is the one the read is allowed from (:func:`tenantdeck.safefile.locate_within`, the walk the read
    itself makes): outside them all, the read refuses the file and this says nothing."""
    real, base = safefile.locate_within(path, roots)
    if base is None:
        return None
    return next((part for part in real.relative_to(base).parts if part.startswith(".")), None)


def _shape_problem(kind: str, data: bytes) -> str | None:
    """Why ``data`` is not a ``kind`` file (only its shape: the service checks the rest), or None."""
    if kind == "p8" and _PEM_KEY.search(data) is None:
        return "holds no '-----BEGIN PRIVATE KEY-----' block: it is not a .p8 key, and nothing else is sent"
    if kind == "p12" and data[:1] != b"\x30":
        return "is not a .p12 bundle (PKCS#12 is binary DER, starting with the byte 0x30): nothing else is sent"
    return None


def read_certificate(written: str, folder: Path | None, env: Mapping[str, str] | None = None, *,
                     kind: str | None = None) -> bytes:
    """The certificate's bytes; :class:`~tenantdeck.safefile.FileRefused` when it is missing, not a regular file,
    too large, empty, outside the allowed folders, in a hidden file or folder, or (``kind``: ``p8`` or ``p12``) not
    shaped as that kind of file (its ``reason`` says which)."""
    path = resolve_beside(written, folder)
    roots, what = _roots(folder, env)
    hidden = _hidden_part(path, roots)
    if hidden is not None:
        raise safefile.FileRefused(path, f"leads into {hidden!r}, a hidden file or folder: a certificate is never read "
                                   "from one (.git, .tenantdeck and .env hold credentials)", HIDDEN)
    data = safefile.read_bytes(path, MAX_BYTES, within=roots, what=what)
    if not data:
        raise safefile.FileRefused(path, "is empty", safefile.EMPTY)
    shape = _shape_problem(kind, data) if kind is not None else None
    if shape is not None:
        raise safefile.FileRefused(path, shape, NOT_A_CERTIFICATE)
    return data


def certificate_problem(written: str, folder: Path | None, env: Mapping[str, str] | None = None, *,
                        kind: str | None = None) -> str | None:
    """What is wrong with the certificate file (every rule :func:`read_certificate` applies), or None."""
    try:
        read_certificate(written, folder, env, kind=kind)
    except safefile.FileRefused as exc:
        return exc.reason
    return None


def certificate_problems(app: App, at: tuple[PathPart, ...], folder: Path | None,
                         env: Mapping[str, str] | None = None) -> list[Problem]:
    """An error at each certificate key of ``app`` (``at`` is the app's path) whose file cannot be uploaded."""
    certs = app.push_certificates
    out: list[Problem] = []
    for kind in KINDS if certs is not None else ():
        written = getattr(certs, kind)
        reason = certificate_problem(written, folder, env, kind=kind) if written is not None else None
        if reason is not None:
            out.append(error(f"certificate file {written!r}: {reason}", (*at, "push_certificates", kind),
                             "certificate-file"))
    return out
