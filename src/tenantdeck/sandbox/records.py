"""Builders for the records the sandbox stores, shared by the API routes, the seed and the bulk loader.

Keeping them in one place means an app made by ``POST /apps``, a seeded app and a bulk-loaded app look alike
(same keys, same defaults), so a client tested against one kind behaves the same against the others.
"""

from __future__ import annotations

import re
import secrets
import uuid
from typing import Any

REGION_NAMES: dict[str, tuple[str, str]] = {
    "us": ("USA", "Servers located at Ohio, USA"),
    "eu": ("Europe", "Servers located at Frankfurt, Germany"),
    "in": ("India", "Servers located at Mumbai, India"),
}

TRIAL_DAYS = 30
DELETE_GRACE_SECONDS = 30 * 24 * 3600
SANDBOX_OWNER = {"id": "sandbox-owner", "name": "Sandbox Owner", "email": "owner@sandbox.invalid"}


def new_app_id() -> str:
    """A fresh app id: 16 lowercase hex characters, like the real service's alphanumeric ids."""
    return secrets.token_hex(8)


def new_widget_id() -> str:
    """Widget ids are UUIDs on the real service (facts §8)."""
    return str(uuid.uuid4())


def app_record(app_id: str, name: str, region: str, version: str, now: int) -> dict[str, Any]:
    """The app object returned by create and list (facts §3.1, the MA-a shape with ``version`` added)."""
    region_name, region_description = REGION_NAMES.get(region, (region.upper(), ""))
    return {
        "id": app_id,
        "name": name,
        "region": region,
        "version": version,
        "plan": "trial",
        "trialEndsAt": now + TRIAL_DAYS * 24 * 3600,
        "state": "active",
        "owner": SANDBOX_OWNER["id"],
        "createdAt": now,
        "updatedAt": now,
        "appOwner": dict(SANDBOX_OWNER),
        "appRegion": {"id": region, "name": region_name, "description": region_description},
    }


def owner_collaborator(now: int) -> dict[str, Any]:
    """Every app starts with its owner as the one collaborator, as on the real service."""
    return {**SANDBOX_OWNER, "role": "owner", "createdAt": now}


def collaborator_record(email: str, role: str, now: int) -> dict[str, Any]:
    """A collaborator added by ``POST /apps/{appId}/collaborators``: the GET's ``{id, name, email, role, createdAt}``.

    The real service invites the address and takes the name from the account that accepts; the sandbox has no
    accounts, so the name is made from the address (``ana.lopez@x`` -> ``Ana Lopez``) and the id is random.
    """
    return {"id": secrets.token_hex(8), "name": name_from_email(email), "email": email, "role": role,
            "createdAt": now}


def name_from_email(email: str) -> str:
    """``ana.lopez+chat@acme.example`` -> ``Ana Lopez``: the local part before any ``+`` tag, words capitalised."""
    local = email.split("@", 1)[0].split("+", 1)[0]
    words = [w for w in _NAME_SEPARATORS.split(local) if w]
    return " ".join(w[:1].upper() + w[1:] for w in words) or email


_NAME_SEPARATORS = re.compile(r"[._\-]+")


def default_app_settings() -> dict[str, Any]:
    """App settings a fresh app reports (facts §3.5 keys; note one value is a list, not a bool)."""
    return {
        "core.conversations.updateOnGroupActions": True,
        "core.conversations.updateOnReplies": False,
        "core.conversations.updateOnCallActivity": True,
        "core.conversations.updateOnMessageActions": False,
        "core.conversations.updateOnCustomMessage": True,
        "core.threads.updateOnMessageActions": False,
        "core.notifications.push.accessible": True,
        "core.notifications.push.enabled": False,
        "core.notifications.push.advanced.enabled": False,
        "core.notifications.push.advanced.included": ["preferences", "templates", "providers.multiple"],
    }


_WORD = re.compile(r"[-_]+")


def humanise(identifier: str) -> str:
    """``message_sent`` -> ``Message sent``; used for trigger descriptions and fallback extension names."""
    words = _WORD.sub(" ", identifier).strip()
    return words[:1].upper() + words[1:]
