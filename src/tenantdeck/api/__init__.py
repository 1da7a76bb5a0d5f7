"""Client of the platform's management API: async client, blocking facade, typed errors, profiles.

Import the submodules directly (``tenantdeck.api.client``, ``tenantdeck.api.profiles``, ...); the names below are
re-exported for convenience. Nothing here imports Textual.
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
from tenantdeck.api.profiles import ProfileError, Target, resolve_target
from tenantdeck.api.sync import SyncClient

__all__ = [
    "ApiError",
    "AuthError",
    "ConflictError",
    "MalformedResponse",
    "ManagementClient",
    "NotFoundError",
    "Ping",
    "ProfileError",
    "RateLimited",
    "RemoteApp",
    "RemoteExtension",
    "RemoteWidget",
    "ServerError",
    "SyncClient",
    "Target",
    "TransportError",
    "ValidationFailed",
    "resolve_target",
]
