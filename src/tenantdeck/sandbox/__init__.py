"""The embedded sandbox: a real local implementation of the management API (FastAPI + SQLite).

``create_app(db_path, key=..., secret=...)`` returns a FastAPI app that runs under uvicorn (``tenantdeck sandbox``)
or in process through ``httpx.ASGITransport``. The ``local`` profile uses :data:`DEFAULT_KEY` and
:data:`DEFAULT_SECRET`. Never imports Textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

DEFAULT_KEY = "sandbox-key"
DEFAULT_SECRET = "sandbox-secret"

__all__ = ["DEFAULT_KEY", "DEFAULT_SECRET", "create_app"]

if TYPE_CHECKING:
    from tenantdeck.sandbox.app import create_app


def __getattr__(name: str) -> Any:
    # Lazy, so reading DEFAULT_KEY (profiles) does not import FastAPI.
    if name == "create_app":
        from tenantdeck.sandbox.app import create_app

        return create_app
    raise AttributeError(name)
