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

One function, :func:`certificate_problems`, says what is wrong with an app's certificates (``validate``, the editor
and every command before any network call); :func:`read_certificate` reads the bytes that are fingerprinted and,
the same bytes, uploaded.
"""

from __future__ import annotations

import os
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


def read_certificate(written: str, folder: Path | None, env: Mapping[str, str] | None = None) -> bytes:
    """The certificate's bytes; :class:`~tenantdeck.safefile.FileRefused` when it is missing, not a regular file,
    too large, empty or outside the allowed folders (its ``reason`` says which)."""
    path = resolve_beside(written, folder)
    roots, what = _roots(folder, env)
    data = safefile.read_bytes(path, MAX_BYTES, within=roots, what=what)
    if not data:
        raise safefile.FileRefused(path, "is empty", safefile.EMPTY)
    return data


def certificate_problem(written: str, folder: Path | None, env: Mapping[str, str] | None = None) -> str | None:
    """What is wrong with the certificate file (opened and checked, nothing read), or None."""
    path = resolve_beside(written, folder)
    roots, what = _roots(folder, env)
    try:
        size = safefile.check(path, MAX_BYTES, within=roots, what=what)
    except safefile.FileRefused as exc:
        return exc.reason
    return "is empty" if size == 0 else None


def certificate_problems(app: App, at: tuple[PathPart, ...], folder: Path | None,
                         env: Mapping[str, str] | None = None) -> list[Problem]:
    """An error at each certificate key of ``app`` (``at`` is the app's path) whose file cannot be uploaded."""
    certs = app.push_certificates
    out: list[Problem] = []
    for kind in KINDS if certs is not None else ():
        written = getattr(certs, kind)
        reason = certificate_problem(written, folder, env) if written is not None else None
        if reason is not None:
            out.append(error(f"certificate file {written!r}: {reason}", (*at, "push_certificates", kind),
                             "certificate-file"))
    return out
