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
sent: a ``.p8`` key is a PEM ``PRIVATE KEY`` block holding base64 of a DER PKCS#8 structure, a ``.p12`` bundle is
one DER structure as long as the file (:func:`shape_problem`: headers only, no cryptography). Only key material
leaves the machine, whatever a path names, and a key the service would refuse as malformed (an empty block, a
body that is not base64, a file cut short: trial K, K5) is a located error of ``validate``, not a failed upload.

One function, :func:`certificate_problems`, says what is wrong with an app's certificates (``validate``, the editor
and every command before any network call); :func:`read_certificate` reads the bytes that are fingerprinted and,
the same bytes, uploaded. Both apply every rule above.
"""

from __future__ import annotations

import base64
import binascii
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
#: the first PEM ``PRIVATE KEY`` block (PKCS#8; an ``ENCRYPTED PRIVATE KEY`` block is not one): its body checked
#: by :func:`_p8_problem`, so a body that is empty or not base64 is said as that, not as "no block"
_PEM_KEY: Final = re.compile(rb"-----BEGIN PRIVATE KEY-----(.*?)-----END PRIVATE KEY-----", re.DOTALL)
#: the DER tags checked: a SEQUENCE (constructed) and an INTEGER
_SEQUENCE: Final = 0x30
_INTEGER: Final = 0x02


def _hidden_part(path: Path, roots: list[Path]) -> str | None:
    """The first part of ``path`` (after every link) below the allowed folder it lies in that starts with a dot.
    The folder is the one the read is allowed from (:func:`tenantdeck.safefile.locate_within`, the walk the read
    itself makes): outside them all, the read refuses the file and this says nothing."""
    real, base = safefile.locate_within(path, roots)
    if base is None:
        return None
    return next((part for part in real.relative_to(base).parts if part.startswith(".")), None)


def _der_header(data: bytes, at: int) -> tuple[int, int, int | None] | None:
    """``(tag, header length, content length)`` of the DER element at ``data[at]`` (content length None for BER's
    indefinite form, 0x80), or None when there is no whole header there. Only the tags this module checks are
    read (single-byte ones); a length of more than 4 bytes (over 4 GiB, never a certificate) is no header."""
    if len(data) < at + 2:
        return None
    tag, first = data[at], data[at + 1]
    if first < 0x80:
        return tag, 2, first
    if first == 0x80:
        return tag, 2, None
    count = first & 0x7F
    if count > 4 or len(data) < at + 2 + count:  # 0xFF (count 127) is reserved
        return None
    return tag, 2 + count, int.from_bytes(data[at + 2 : at + 2 + count], "big")


def _der_problem(der: bytes, holder: str) -> str | None:
    """Why ``der`` is not one whole DER SEQUENCE whose first element is an INTEGER, or None: the outer shape of a
    PKCS#8 PrivateKeyInfo and of a PKCS#12 PFX (both begin with their version number), read from headers only.
    ``holder`` names what holds the bytes in the reason ("the file").

    The outer length must be the bytes' length (a file cut short, or with bytes after it, is not sent). BER's
    indefinite length (0x80: macOS Keychain exports .p12 bundles so) is accepted when the bytes end with its
    end-of-contents mark (two zero bytes); only a walk of every nested element would see such a file cut exactly
    after an inner end mark, and the service still refuses that one."""
    outer = _der_header(der, 0)
    if outer is None or outer[0] != _SEQUENCE:
        return "it does not begin with a DER SEQUENCE"
    _, size, length = outer
    if length is None:
        end = len(der) - 2
        if end < size or der[end:] != b"\0\0":
            return "its SEQUENCE of unstated length has no end mark: was it cut short?"
    elif size + length != len(der):
        more = "cut short" if size + length > len(der) else "followed by other bytes"
        return f"its DER header says {size + length} bytes, {holder} has {len(der)}: was it {more}?"
    else:
        end = len(der)
    version = _der_header(der, size)
    if version is None or version[0] != _INTEGER or not version[2] or size + version[1] + version[2] > end:
        return "its SEQUENCE does not begin with a version number (a DER INTEGER)"
    return None


def _p8_problem(data: bytes) -> str | None:
    """Why ``data`` is not a PEM PKCS#8 key (:func:`shape_problem`), or None."""
    match = _PEM_KEY.search(data)
    if match is None:
        return "holds no '-----BEGIN PRIVATE KEY-----' block: it is not a .p8 key, and nothing else is sent"
    # the whole file is uploaded: text around the block (a pasted .env line, a second block) would be sent with it
    # (trial L, L4: 59 bytes of other text went up with a valid key)
    before, after = len(data[: match.start()].strip()), len(data[match.end() :].strip())
    if before or after:
        where = " and ".join(part for part, n in (("before", before), ("after", after)) if n)
        return (f"holds other text {where} its PRIVATE KEY block ({before + after} bytes): a .p8 file is that one "
                "block and nothing else, since the whole file is sent")
    body = b"".join(match.group(1).split())
    if not body:
        return "its PRIVATE KEY block is empty: a .p8 key has base64 text between its BEGIN and END lines"
    try:
        der = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        return ("its PRIVATE KEY block is not valid base64 (letters, digits, '+' and '/', '=' only at its end): "
                "was it edited or cut?")
    why = _der_problem(der, "the block")
    return None if why is None else f"its PRIVATE KEY block is not a PKCS#8 key: {why}"


def _p12_problem(data: bytes) -> str | None:
    """Why ``data`` is not a PKCS#12 bundle (:func:`shape_problem`), or None."""
    if data[:1] != bytes([_SEQUENCE]):
        return "is not a .p12 bundle (PKCS#12 is binary DER, starting with the byte 0x30): nothing else is sent"
    why = _der_problem(data, "the file")
    return None if why is None else f"is not a whole .p12 bundle (PKCS#12 is binary DER): {why}"


def shape_problem(kind: str, data: bytes) -> str | None:
    """Why ``data`` is not a ``kind`` (``p8`` or ``p12``) file, or None; any bytes give one or the other, never an
    exception, and the reason never holds a byte of ``data``.

    Only the shape, as far as the headers say, so that a file the service would refuse is refused before anything
    is sent (trial K, K5: an empty or non-base64 PEM block passed ``validate`` and failed at the upload): a ``.p8``
    is a PEM ``PRIVATE KEY`` block whose body is strict base64 of one DER SEQUENCE starting with an INTEGER; a
    ``.p12`` is one DER SEQUENCE, its length the file's, starting with an INTEGER. The key inside is the service's
    to check (no ``cryptography`` dependency for it)."""
    if kind == "p8":
        return _p8_problem(data)
    if kind == "p12":
        return _p12_problem(data)
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
    shape = shape_problem(kind, data) if kind is not None else None
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
