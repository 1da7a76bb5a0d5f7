"""Push notification certificates: upload an APNs ``.p12`` or ``.p8`` (multipart field ``certificate``), and ask
which ones an app has.

The vendor's OpenAPI looks swapped here: the p12 upload's example answers ``body{certificate_p12, certificate_p8}``
and query-certificates' answers ``body{success}``, while the facts file (§2) says the query reports
``body{certificate_p12: bool, certificate_p8: bool}``. The sandbox answers so that a client written against either
reading works: an upload answers ``body{success: true, certificate_p12, certificate_p8}`` (the state after the
upload), the query ``body{certificate_p12, certificate_p8, success: true}``. ``docs/real-service.md`` §8 says why.
Only a fingerprint of the file is kept (:mod:`tenantdeck.sandbox.certificates`).
"""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, File, UploadFile
from fastapi.responses import JSONResponse

from tenantdeck.sandbox.certificates import Kind, check_certificate
from tenantdeck.sandbox.deps import ERROR_RESPONSES, AppIdParam, StoreDep
from tenantdeck.sandbox.envelopes import extension_reply
from tenantdeck.sandbox.errors import ErrorBody
from tenantdeck.sandbox.limits import CERTIFICATE_MAX_BYTES

router = APIRouter(tags=["Push notification certificates"], responses=ERROR_RESPONSES)

BASE = "/apps/{appId}/extensions/push-notification/v1"
CertificateFile = Annotated[
    UploadFile, File(description=f"The certificate file (at most {CERTIFICATE_MAX_BYTES} bytes)")
]
_TOO_LARGE = {413: {"model": ErrorBody, "description": "The certificate is too large (ERR_PAYLOAD_TOO_LARGE)"}}


def _state(kinds: dict[str, bool]) -> dict[str, bool]:
    return {"certificate_p12": kinds["p12"], "certificate_p8": kinds["p8"]}


async def _upload(kind: Kind, app_id: str, certificate: UploadFile, db: StoreDep) -> JSONResponse:
    started = time.perf_counter()
    data = await certificate.read(CERTIFICATE_MAX_BYTES + 1)
    fingerprint = check_certificate(kind, data)
    kinds = db.record_certificate(app_id, kind, fingerprint.sha256, fingerprint.size)
    return extension_reply({"success": True, **_state(kinds)}, started)


@router.post(
    f"{BASE}/upload-certificate-p12",
    operation_id="upload-push-notification-certificate-p12",
    summary="Push notification: upload a .p12 certificate",
    description=(
        "Multipart field `certificate`: a PKCS#12 bundle (APNs). Replaces the app's .p12. Answers "
        "`data.body{success, certificate_p12, certificate_p8}`; 400 ERR_BAD_REQUEST for an empty file or one that "
        f"is not PKCS#12, 413 over {CERTIFICATE_MAX_BYTES} bytes. Only a SHA-256 fingerprint is kept."
    ),
    responses=_TOO_LARGE,
)
async def upload_p12(appId: AppIdParam, certificate: CertificateFile, db: StoreDep) -> JSONResponse:
    return await _upload("p12", appId, certificate, db)


@router.post(
    f"{BASE}/upload-certificate-p8",
    operation_id="upload-push-notification-certificate-p8",
    summary="Push notification: upload a .p8 key",
    description=(
        "Multipart field `certificate`: a PKCS#8 PEM `-----BEGIN PRIVATE KEY-----` block (APNs token key). Replaces "
        "the app's .p8. Answers `data.body{success, certificate_p12, certificate_p8}`; 400 ERR_BAD_REQUEST for an "
        f"empty file or one that is not such a block, 413 over {CERTIFICATE_MAX_BYTES} bytes. Only a SHA-256 "
        "fingerprint is kept."
    ),
    responses=_TOO_LARGE,
)
async def upload_p8(appId: AppIdParam, certificate: CertificateFile, db: StoreDep) -> JSONResponse:
    return await _upload("p8", appId, certificate, db)


@router.get(
    f"{BASE}/query-certificates",
    operation_id="query-push-notification-certificates",
    summary="Push notification: which certificates are uploaded",
    description="Answers `data.body{certificate_p12: bool, certificate_p8: bool, success: true}`.",
)
async def query_certificates(appId: AppIdParam, db: StoreDep) -> JSONResponse:
    started = time.perf_counter()
    return extension_reply({**_state(db.certificates(appId)), "success": True}, started)
