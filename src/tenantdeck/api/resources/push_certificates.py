"""Push certificates: the push-notification extension's APNs .p12 / .p8 files."""

from __future__ import annotations

from tenantdeck.api.errors import NotFoundError, Operation
from tenantdeck.api.resources.common import APP_GONE_CODES, seg
from tenantdeck.api.transport import Transport


class PushCertificatesApi(Transport):
    """Which certificates the service holds, and uploading one."""

    async def query_certificates(self, app_id: str) -> dict[str, bool]:
        """Which APNs certificates the service holds: ``{"p12": bool, "p8": bool}`` (query-certificates). A field
        the answer leaves out is False: nothing says it is there; a 404 that is not about the app is none."""
        op = Operation(f"query push certificates of app {app_id}", subject="certificates", app_id=app_id)
        path = f"/apps/{seg(app_id)}/extensions/push-notification/v1/query-certificates"
        try:
            payload = (await self._call(op, "GET", path)).optional_obj() or {}
        except NotFoundError as exc:
            if exc.code in APP_GONE_CODES:
                raise
            payload = {}  # like a settings read: nothing there (push notification never configured)
        return {kind: payload.get(f"certificate_{kind}") is True for kind in ("p12", "p8")}

    async def upload_certificate(self, app_id: str, kind: str, filename: str, content: bytes) -> None:
        """Upload an APNs certificate (multipart field ``certificate``, as the API declares). Uploading the same
        file twice leaves the same certificate, so a retry simply sends it again. The content never reaches a log
        or an error message: only its size is named."""
        if kind not in ("p12", "p8"):
            raise ValueError(f"certificate kind must be p12 or p8, not {kind!r}")
        op = Operation(f"upload the .{kind} push certificate of app {app_id} ({len(content)} bytes)",
                       subject="certificates", app_id=app_id)
        path = f"/apps/{seg(app_id)}/extensions/push-notification/v1/upload-certificate-{kind}"
        envelope = await self._call(op, "POST", path, files={"certificate": (filename, content,
                                                                               "application/octet-stream")})
        envelope.check_success()
