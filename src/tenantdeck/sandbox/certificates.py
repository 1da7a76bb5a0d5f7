"""Push certificates: what an upload must look like, and the fingerprint that is all the sandbox keeps of it.

The real service takes an APNs ``.p12`` bundle (PKCS#12) or ``.p8`` key (PKCS#8 PEM) as multipart field
``certificate``; the vendor documents no check, so the sandbox does the cheap ones that catch the likely mistakes
(an empty file, the wrong file, the ``.p12`` sent as the ``.p8`` or the other way round), with a message that
says which, and never a byte of the file. A file that passes is reduced to its SHA-256, size and upload time:
nothing that could rebuild the key is stored or logged.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from typing import Final, Literal

from tenantdeck.sandbox import errors
from tenantdeck.sandbox.limits import CERTIFICATE_MAX_BYTES

Kind = Literal["p12", "p8"]

#: a PKCS#12 PFX begins ``SEQUENCE { INTEGER 3 (version), ...``: the version's DER bytes
_PFX_VERSION: Final = b"\x02\x01\x03"
_PEM: Final = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----\s*([A-Za-z0-9+/=\s]*?)\s*-----END \1-----")


@dataclass(frozen=True, slots=True)
class Fingerprint:
    sha256: str
    size: int


def _refuse(kind: Kind, why: str) -> errors.ApiError:
    return errors.ApiError(
        400, errors.BAD_REQUEST, f"The uploaded file is not a usable .{kind} certificate.",
        details={"certificate": [why]},
    )


def _der_sequence_length(data: bytes) -> tuple[int, int] | None:
    """(header length, content length) of the DER SEQUENCE ``data`` starts with; content length -1 for BER's
    indefinite form; None when ``data`` does not start with a well-formed SEQUENCE header."""
    if len(data) < 2 or data[0] != 0x30:
        return None
    first = data[1]
    if first < 0x80:
        return 2, first
    if first == 0x80:
        return 2, -1
    count = first & 0x7F
    if count > 4 or len(data) < 2 + count:
        return None
    return 2 + count, int.from_bytes(data[2 : 2 + count], "big")


def _check_p12(data: bytes) -> None:
    header = _der_sequence_length(data)
    if header is None:
        raise _refuse("p12", "is not PKCS#12 (.p12): it does not start with a DER SEQUENCE (byte 0x30)")
    size, length = header
    if length >= 0 and size + length != len(data):
        raise _refuse("p12", f"is not PKCS#12 (.p12): its outer SEQUENCE says {size + length} bytes, the file has "
                             f"{len(data)}; was it cut short or converted to text?")
    if data[size : size + len(_PFX_VERSION)] != _PFX_VERSION:
        raise _refuse("p12", "is not PKCS#12 (.p12): a PKCS#12 file begins with version 3")


def _check_p8(data: bytes) -> None:
    if data[:1] == b"\x30":
        raise _refuse("p8", "is binary DER, not PEM text (a .p12? upload it as upload-certificate-p12)")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise _refuse("p8", "is not a PEM text file") from None
    match = _PEM.search(text)
    if match is None:
        raise _refuse("p8", "holds no PEM block: a .p8 key is a '-----BEGIN PRIVATE KEY-----' block")
    if match.group(1) != "PRIVATE KEY":
        raise _refuse("p8", f"holds a '{match.group(1)}' block: a .p8 key is a PKCS#8 '-----BEGIN PRIVATE KEY-----' "
                            "block")
    try:
        der = base64.b64decode("".join(match.group(2).split()), validate=True)
    except (binascii.Error, ValueError):
        raise _refuse("p8", "the PRIVATE KEY block is not valid base64") from None
    if _der_sequence_length(der) is None:
        raise _refuse("p8", "the PRIVATE KEY block does not hold a DER structure (PKCS#8 begins with a SEQUENCE)")


def check_certificate(kind: Kind, data: bytes) -> Fingerprint:
    """The fingerprint of an uploaded certificate, or an ``ApiError``: 413 over
    :data:`~tenantdeck.sandbox.limits.CERTIFICATE_MAX_BYTES`, 400 for an empty file or one that is plainly not a
    ``.p12`` (a DER SEQUENCE whose length matches the file, version 3) or a ``.p8`` (a PEM PRIVATE KEY block)."""
    if len(data) > CERTIFICATE_MAX_BYTES:
        raise errors.ApiError(
            413, errors.PAYLOAD_TOO_LARGE,
            f"The certificate is larger than {CERTIFICATE_MAX_BYTES} bytes; a push certificate is a few kilobytes.",
            details={"certificate": [f"is over {CERTIFICATE_MAX_BYTES} bytes"]},
        )  # fmt: skip
    if not data:
        raise _refuse(kind, "is empty")
    (_check_p12 if kind == "p12" else _check_p8)(data)
    return Fingerprint(hashlib.sha256(data).hexdigest(), len(data))
