"""Where Chromium is missing the browser tests skip and say how to install it; under CI's
``TENANTDECK_REQUIRE_BROWSER`` (.ci/run sets it once Chromium is there) they never skip: they run, and fail."""

from __future__ import annotations

import pytest

from tests.preview import browser as chromium


def test_without_chromium_the_reason_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chromium, "REQUIRED", False)
    monkeypatch.setattr(chromium, "CHROMIUM", "/nonexistent/chromium")
    why = chromium.why_not()
    assert why is not None and "install" in why
    assert "apt-get install chromium" in why or "playwright" in why


def test_where_ci_requires_the_browser_nothing_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chromium, "REQUIRED", True)
    monkeypatch.setattr(chromium, "CHROMIUM", "/nonexistent/chromium")
    assert chromium.why_not() is None
