"""Helpers and request bodies shared by the sandbox tests (unique module name: tests/ has no packages)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from fastapi import FastAPI

from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET, samples

AUTH = {"key": DEFAULT_KEY, "secret": DEFAULT_SECRET}

#: The ``make_app`` fixture: ``make_app(**create_app_kwargs) -> FastAPI`` on the test's database file.
MakeApp = Callable[..., FastAPI]


def client_for(app: FastAPI, *, auth: bool = True) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://sandbox", headers=AUTH if auth else None
    )


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The response is the sandbox's error envelope with this status and code; returns the inner object."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    inner: dict[str, Any] = body["error"]
    return inner


def widget_settings(name: str = "Test widget") -> dict[str, Any]:
    return samples.widget_configuration(name)


def webhook(webhook_id: str = "hook1", **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": webhook_id,
        "name": f"Hook {webhook_id}",
        "webhookURL": f"https://hooks.example.com/{webhook_id}",
        "useBasicAuth": True,
        "username": "hookuser",
        "password": "TopSecretPw1",
        "enabled": True,
        "retryOnFailure": False,
    }
    body.update(overrides)
    return body


def sms(**overrides: Any) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "fromMobileNo": "+15005550006",
        "messageDelay": 60,
        "twilioAccountSid": "ACtest000",
        "twilioAuthToken": "twiliotokenvalue",
        "websiteURL": "https://example.com",
    }
    settings.update(overrides)
    return {"settings": settings}
