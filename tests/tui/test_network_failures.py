"""Every network failure the editor can meet while it refreshes, pushes or pulls (unreachable, 401, 429 after
retries, timeout, malformed answer) is one error notification with the typed error's message and hint: never a
traceback, never a frozen screen. Each against a real failing endpoint on 127.0.0.1, not a mock."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tenantdeck.sandbox.app import create_app
from tenantdeck.sync.remote.pull import pull_target
from tenantdeck.targets import local_target
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.pull_screen import PullScreen
from tenantdeck.tui.screens.review_screen import ReviewScreen
from tests.loopback import serve_on_loopback
from tests.tui.pilot import settle


def _answering(handler: Any) -> Starlette:
    return Starlette(routes=[Route("/{path:path}", handler, methods=["GET", "POST", "PUT", "DELETE"])])


async def _rate_limited(request: Request) -> Response:
    return JSONResponse({"error": {"code": "ERR_TOO_MANY_REQUESTS", "message": "slow down"}}, status_code=429,
                        headers={"Retry-After": "0"})


async def _slow(request: Request) -> Response:
    await asyncio.sleep(1.5)
    return JSONResponse({"data": []})


async def _malformed(request: Request) -> Response:
    return PlainTextResponse("<html>a login page, not the API</html>")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def endpoint(kind: str, tmp: Path) -> Iterator[str]:
    if kind == "unreachable":
        yield f"http://127.0.0.1:{_closed_port()}"
        return
    app = {"429": _answering(_rate_limited), "timeout": _answering(_slow), "malformed": _answering(_malformed),
           "401": create_app(tmp / "other.sqlite3", key="the-right-key", secret="the-right-secret")}[kind]
    with serve_on_loopback(app) as url:
        yield url


#: failure -> what its notification must say (the typed error's words, then its hint in the editor's words: no
#: command-line flags there, api/errors.py FLAG_SETTINGS)
EXPECTED = {
    "unreachable": ("could not connect to 127.0.0.1", "check the base URL (TENANTDECK_BASE_URL or the profile"),
    "401": ("401", "check TENANTDECK_KEY and TENANTDECK_SECRET (profile 'flaky')"),
    "429": ("429", "rate limited by the service"),
    "timeout": ("did not answer within 0.5 s", "check the base URL (TENANTDECK_BASE_URL or the profile"),
    "malformed": ("list apps", "the answer is not what the management API sends"),
}


@pytest.mark.parametrize("kind", list(EXPECTED))
def test_each_network_failure_is_a_notification_with_its_hint(kind: str, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    monkeypatch.setenv("TENANTDECK_KEY", "a-wrong-key")
    monkeypatch.setenv("TENANTDECK_SECRET", "a-wrong-secret")
    monkeypatch.setattr(PullScreen, "CLIENT_OPTIONS", {"max_retries": 1, "retry_base_delay": 0.0})
    draft = tmp_path / "tenantdeck.yaml"
    pull_target(local_target(), draft)
    # a draft of the failing account's, not of the local sandbox's: without its base and lock file it records no
    # account (one that did would be refused before any request, with exit 8's words, not a network error)
    shutil.rmtree(tmp_path / ".tenantdeck")
    (tmp_path / "tenantdeck.lock.json").unlink()
    with endpoint(kind, tmp_path) as url:
        (tmp_path / "config").mkdir()
        (tmp_path / "config" / "profiles.yaml").write_text(
            f"profiles:\n  flaky:\n    base_url: {url}\n    timeout: 0.5\n", encoding="utf-8")
        asyncio.run(_each_path(draft, *EXPECTED[kind]))


async def _each_path(draft: Path, words: str, hint: str) -> None:
    app = TenantdeckApp(draft, profile="flaky")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewScreen)
        review.request_options = {"max_retries": 1, "retry_base_delay": 0.0}

        async def failed(*keys: str) -> str:
            app._notifications.clear()
            await pilot.press(*keys)
            await settle(pilot)
            errors = [n for n in app._notifications if n.severity == "error"]
            assert len(errors) == 1, [n.message for n in app._notifications]
            assert "Traceback" not in errors[0].message
            assert words in errors[0].message and hint in errors[0].message, errors[0].message
            return errors[0].title

        assert await failed("r") == "Could not plan"  # refresh
        await pilot.press("p")
        await pilot.pause()
        assert await failed("y") == "Push failed"
        assert not review.pushing and "Not pushed" in str(review.query_one("#status").render())
        await pilot.press("escape")
        await settle(pilot)
        app._notifications.clear()
        await pilot.press("f5")
        await settle(pilot)
        pull = app.screen
        assert isinstance(pull, PullScreen)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert len(errors) == 1 and errors[0].title == "Pull failed" and hint in errors[0].message
        assert app.editor.session.text == draft.read_text(encoding="utf-8")  # nothing written
        await pilot.press("escape")  # the screen still answers keys
        await settle(pilot)
        assert not isinstance(app.screen, PullScreen)
