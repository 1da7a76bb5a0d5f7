"""The preview server over real loopback HTTP: the token, the Host check, the headers, and an update on the event
stream after each change of the draft (an edit in the session, a save by another editor read by the CLI)."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from tenantdeck import exitcodes
from tenantdeck.draft.session import DraftSession
from tenantdeck.preview import page
from tenantdeck.preview.model import AppRef
from tenantdeck.preview.server import PreviewServer
from tests import procs
from tests.preview.htmlcheck import updates

pytestmark = pytest.mark.e2e


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    from tenantdeck.cli import cli

    path = tmp_path / "d.yaml"
    assert CliRunner().invoke(cli, ["init", str(path)]).exit_code == 0
    return path


@pytest.fixture
def server(draft: Path) -> Iterator[PreviewServer]:
    srv = PreviewServer(DraftSession.open(draft, validate=False), AppRef())
    srv.start()
    yield srv
    srv.stop()


def test_the_page_answers_only_with_the_token_and_a_loopback_host(server: PreviewServer) -> None:
    ok = httpx.get(server.url)
    assert ok.status_code == 200 and "text/html" in ok.headers["content-type"]
    assert ok.headers["content-security-policy"] == page.content_security_policy(False)
    assert ok.headers["referrer-policy"] == "no-referrer" and ok.headers["cache-control"] == "no-store"
    wrong = server.url.replace(server.token, server.token[:-1] + ("A" if server.token[-1] != "A" else "B"))
    assert httpx.get(wrong).status_code == 403
    assert httpx.get(wrong + "events").status_code == 403
    assert httpx.get(f"http://127.0.0.1:{server.port}/").status_code == 403
    assert httpx.get(server.url + "nope").status_code == 404 and httpx.get(server.url + "events/x").status_code == 404
    rebound = httpx.get(server.url, headers={"host": f"attacker.example:{server.port}"})
    assert rebound.status_code == 403, "a DNS-rebinding page cannot read it, token or not"
    assert len(server.token) >= 32


@pytest.mark.parametrize("path", ["/", "/favicon.ico", "/events", "/x/", "/x/events", "/" + "a" * 32 + "/",
                                  "/robots.txt", "/%2e%2e/", "/a/b/c/d"])
def test_any_path_without_the_token_is_403_as_documented(server: PreviewServer, path: str) -> None:
    """docs/preview.md: "every path under a random token ... (anything else: 403)". A trial found ``GET /`` 404."""
    answer = httpx.get(f"http://127.0.0.1:{server.port}{path}")
    assert answer.status_code == 403, (path, answer.status_code)
    assert server.token not in answer.text
    doc = (Path(__file__).parents[2] / "docs" / "preview.md").read_text()
    assert "anything else: 403" in doc


def test_a_wrong_path_under_the_right_token_is_404_and_says_so_in_the_doc(server: PreviewServer) -> None:
    """With the token the page is yours; a path it does not have is simply not found (and the doc says which)."""
    assert httpx.get(server.url + "nothing-here").status_code == 404
    assert httpx.get(server.url + "nothing-here", headers={"host": f"attacker.example:{server.port}"}
                     ).status_code == 403
    assert "404" in (Path(__file__).parents[2] / "docs" / "preview.md").read_text()


def test_refuses_a_host_that_is_not_loopback(draft: Path) -> None:
    with pytest.raises(ValueError):
        PreviewServer(DraftSession.open(draft, validate=False), AppRef(), host="0.0.0.0")
    from tenantdeck.cli import cli

    result = CliRunner().invoke(cli, ["preview", str(draft), "--host", "0.0.0.0"])
    assert result.exit_code == exitcodes.USAGE and "loopback only" in result.output


def test_every_edit_is_pushed_to_an_open_stream(server: PreviewServer) -> None:
    session = server.session
    with httpx.stream("GET", server.url + "events", timeout=30) as response:
        stream = updates(response)
        first = next(stream)
        assert "rgb(3, 169, 244)" in str(first["doc"])
        session.set("apps[0].widgets[0].style.primary_color", "#123456")
        assert "rgb(18, 52, 86)" in str(next(stream)["doc"])
        session.set("apps[0].widgets[0].sidebar.users", False)
        assert 'data-section="users"' not in str(next(stream)["doc"])
        session.set("apps[0].widgets[0].style.custom_css", ".cc-widget{outline:3px solid red}")
        assert ".cc-widget{outline:3px solid red}" in str(next(stream)["doc"])
        session.undo()
        assert "outline:3px" not in str(next(stream)["doc"])


@pytest.mark.slow
def test_a_draft_that_cannot_be_read_keeps_the_last_page_with_a_note(server: PreviewServer, draft: Path) -> None:
    with httpx.stream("GET", server.url + "events", timeout=30) as response:
        stream = updates(response)
        next(stream)
        draft.write_text("apps: [unclosed\n")
        server.session.reload()
        update = next(stream)
        assert any("cannot be read" in str(n) for n in update["notes"])  # type: ignore[union-attr]
        assert 'data-section="chats"' in str(update["doc"]), "the last page that could be drawn"


def test_the_command_follows_a_save_by_another_editor_and_stops_on_sigterm(draft: Path) -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    proc = procs.tenantdeck("preview", str(draft), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        with httpx.stream("GET", url + "events", timeout=30) as response:
            stream = updates(response)
            next(stream)
            text = draft.read_text()
            assert "name: Acme help desk" in text
            draft.write_text(text.replace("name: Acme help desk", "name: Renamed desk"))
            # written in place, as many editors save: the watcher may read the file between its truncation and
            # its writing, and says so (the last page kept, with a note) before the whole file is read
            update = next(stream)
            while any("cannot be read" in str(note) for note in update["notes"]):  # type: ignore[union-attr]
                update = next(stream)
            assert update["title"] == "Acme Support · Renamed desk"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=10)
    assert code == exitcodes.TERMINATED


def test_an_unknown_app_is_named_escaped_once(draft: Path) -> None:
    """`--app $'\\e[31mX'`: the warning showed `\\\\x1b` (the escaped text quoted again with repr)."""
    proc = procs.tenantdeck("preview", str(draft), "--app", "\x1b[31mX", stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_COLOR": "1"})
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert "no app named '\\x1b[31mX'" in line and "\x1b" not in line, line
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=10)
