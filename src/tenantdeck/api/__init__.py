"""Client of the platform's management API: the async client, its envelopes, typed errors, retries, rate limit.

The client (``client``) is the HTTP transport (``transport``) with the resource groups (``resources``) on it.
Import the submodules directly (``tenantdeck.api.client``, ``tenantdeck.api.errors``, ...); the names below are
re-exported for convenience. Nothing here imports Textual, and nothing here knows where a target comes from:
profiles, credentials and the in-process sandbox are :mod:`tenantdeck.targets` (which imports this package, never
the other way round), so the client never drags FastAPI in.
"""

from tenantdeck.api.client import ManagementClient
from tenantdeck.api.errors import (
    ApiError,
    AuthError,
    ConflictError,
    MalformedResponse,
    NotFoundError,
    RateLimited,
    ServerError,
    TransportError,
    ValidationFailed,
)
from tenantdeck.api.models import Ping, RemoteApp, RemoteExtension, RemoteWidget

__all__ = [
    "ApiError",
    "AuthError",
    "ConflictError",
    "MalformedResponse",
    "ManagementClient",
    "NotFoundError",
    "Ping",
    "RateLimited",
    "RemoteApp",
    "RemoteExtension",
    "RemoteWidget",
    "ServerError",
    "TransportError",
    "ValidationFailed",
]
