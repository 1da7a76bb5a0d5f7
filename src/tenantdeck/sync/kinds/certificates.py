"""Push certificates: the APNs ``.p12`` / ``.p8`` files of the push-notification extension, one resource each.

The draft names a file; the canonical form holds a keyed fingerprint of its content (never the content). The
service only says whether it holds a certificate (query-certificates), never which one, so the live side of a
present certificate is unknown and the base (the fingerprint of what tenantdeck last uploaded) stands in for it:
a file whose content changed since then is uploaded, an unchanged one is not, and a certificate uploaded in the
dashboard is left alone until the draft's file changes. The API cannot remove a certificate: a file taken out of
the draft is noted, not deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tenantdeck.models.certfiles import KINDS, MAX_BYTES, read_certificate
from tenantdeck.models.secrets import fingerprint
from tenantdeck.safefile import FileRefused
from tenantdeck.sync.kinds.base import Kind, Planner
from tenantdeck.sync.types import UNKNOWN, StepKind

if TYPE_CHECKING:
    from tenantdeck.models import App, Draft
    from tenantdeck.sync.types import RemoteAppBundle, ResourceDiff, Step

__all__ = ["KIND", "KINDS", "MAX_BYTES", "CertificatesKind", "file_state"]


def file_state(draft: Draft, written: str, *, secret_key: bytes, env: Mapping[str, str],
               kind: str | None = None) -> dict[str, Any]:
    """``{"fingerprint": ...}`` of the file's content, or ``{"unreadable": why}``.

    Read by :func:`~tenantdeck.models.certfiles.read_certificate` (inside the draft's folder, a regular file, a
    bounded read). Validation (:func:`~tenantdeck.models.certfiles.certificate_problems`) has already refused a
    draft whose certificate is not so, before any command reads the service; "unreadable" is what a file that
    changed since then gives, and the plan refuses it as what it is (:meth:`CertificatesKind.plan`)."""
    try:
        content = read_certificate(written, draft.folder, env, kind=kind)
    except FileRefused as exc:
        return {"unreadable": f"{written}: {exc.reason}"}
    return {"fingerprint": fingerprint(content, secret_key)}


class CertificatesKind(Kind):
    name = "certificate"
    section = "push_certificates"
    empty = {"push_certificates": {}}
    optional = True
    labels = {"path": "Certificate file", "file": "Certificate content"}
    steps = (StepKind("upload_certificate", "upload", "update"),)

    def from_draft(self, draft: Draft, app: App, *, secret_key: bytes, env: Mapping[str, str]) -> dict[str, Any]:
        certs = app.push_certificates
        if certs is None:
            return {"push_certificates": None}
        out = {kind: {"path": written, "file": file_state(draft, written, secret_key=secret_key, env=env, kind=kind)}
               for kind in KINDS if (written := getattr(certs, kind)) is not None}
        return {"push_certificates": out}

    def from_remote(self, remote: RemoteAppBundle, *, secret_key: bytes) -> dict[str, Any]:
        """Present: which file is unknown (the service does not say); absent: no resource."""
        if remote.certificates is None:
            return {"push_certificates": None}
        return {"push_certificates": {kind: {"path": dict(UNKNOWN), "file": dict(UNKNOWN)}
                                      for kind in KINDS if remote.certificates.get(kind)}}

    def title(self, rid: str, name: str | None) -> str:
        return f"push certificate .{rid}"

    def is_secret(self, path: str) -> bool:
        return path == "file"  # a fingerprint, compared like a secret's: never shown, never taken into the draft

    def resources(self, app: Mapping[str, Any]) -> dict[str, Any]:
        value = app.get("push_certificates")
        return dict(value) if isinstance(value, Mapping) else {}

    def put(self, app: dict[str, Any], rid: str, leaves: Mapping[str, Any]) -> None:
        block = dict(app.get("push_certificates") or {})
        block[rid] = dict(leaves)
        app["push_certificates"] = block

    def plan(self, planner: Planner, res: ResourceDiff) -> None:
        if res.status in ("create", "update"):
            state = (res.draft or {}).get("file") or {}
            if "unreadable" in state:
                planner.refuse(res, f"cannot read the certificate file: {state['unreadable']}")
                return
            written = str((res.draft or {}).get("path") or "")
            planner.step("upload_certificate", res, res.rid, changes=planner.changes(res),
                         payload={"certificate": res.rid, "path": written, "fingerprint": state.get("fingerprint")})
        elif res.status == "delete":
            planner.note(f"{res.title} is no longer in the draft, but the API cannot remove a push certificate: it "
                         "stays on the service (remove it in the dashboard)", "certificate_kept")

    def apply(self, base: dict[str, Any] | None, step: Step, sent: Any,
              result: Mapping[str, Any]) -> dict[str, Any] | None:
        assert base is not None
        block = dict(base.get("push_certificates") or {})
        block[step.rid] = {"path": sent["path"], "file": {"fingerprint": sent["fingerprint"]}}
        base["push_certificates"] = block
        return base


KIND = CertificatesKind()
