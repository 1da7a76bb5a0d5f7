"""What `init` and `pull` write beside a draft, and when they refuse to write (issue 7), through the CLI.

`pull` runs against the built-in `local` profile: the sandbox in process, on a database in the test's own data
directory, so nothing here touches the user's files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tenantdeck import exitcodes
from tenantdeck.cli import cli

# the SMS token: the service reports it, so pull writes its reference (webhook passwords are write-only)
SEEDED_SECRET = "${TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN}"
LITERAL = "hunter2literal"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        "TENANTDECK_DATA_DIR": str(tmp_path / "data"),
        "TENANTDECK_CONFIG_DIR": str(tmp_path / "config"),
        "TENANTDECK_BASE_URL": "",
        "NO_COLOR": "1",
    }


def tenantdeck(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env)


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make ``path`` unwritable for whoever runs the tests: ``chattr +i`` as root (root ignores mode bits),
    ``chmod 0444`` otherwise. Always undone, so tmp_path can be cleaned up."""
    if os.geteuid() == 0:
        chattr = shutil.which("chattr")
        if chattr is None:
            pytest.skip("running as root without chattr: no way to make a file read-only for root")
        done = subprocess.run([chattr, "+i", str(path)], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"chattr +i does not work here: {done.stderr.strip()}")
        try:
            assert not os.access(path, os.W_OK)
            yield
        finally:
            subprocess.run([chattr, "-i", str(path)], check=False)
    else:
        mode = path.stat().st_mode
        path.chmod(0o444)
        try:
            yield
        finally:
            path.chmod(mode)


# --- pull: refuse before writing anything ----------------------------------------------------------------------


def test_pull_into_a_missing_directory_refuses_like_init(tmp_path: Path, env: dict[str, str]) -> None:
    draft = tmp_path / "missing-dir" / "x.yaml"
    for command in (["pull", "--draft", str(draft)], ["init", str(draft)]):
        result = tenantdeck(*command, env=env)
        assert result.exit_code == exitcodes.ERROR, (command, result.output)
        assert result.output.count("\n") == 1, result.output
        assert result.output.startswith(f"error: cannot write {draft}: the directory {draft.parent} does not exist")
        assert "Traceback" not in result.output
    assert not draft.parent.exists()


def test_pull_into_a_read_only_draft_says_so_and_changes_nothing(tmp_path: Path, env: dict[str, str]) -> None:
    draft = tmp_path / "d.yaml"
    assert tenantdeck("init", str(draft), env=env).exit_code == 0
    before = draft.read_bytes()
    files = listing(tmp_path / ".tenantdeck")
    with read_only(draft):
        result = tenantdeck("pull", "--draft", str(draft), env=env)
        assert result.exit_code == exitcodes.ERROR, result.output
        assert result.output == f"error: cannot write {draft}: the file is read-only; nothing was changed\n"
        assert draft.read_bytes() == before
    assert not (tmp_path / "d.yaml.bak").exists()
    assert listing(tmp_path / ".tenantdeck") == files  # no workspace, key or snapshot either
    assert not list(tmp_path.glob(".d.yaml.*"))  # no temporary file left behind


def test_the_bak_never_keeps_a_literal_secret_the_pull_replaced(tmp_path: Path, env: dict[str, str]) -> None:
    draft = tmp_path / "d.yaml"
    assert tenantdeck("pull", "--draft", str(draft), env=env).exit_code == 0
    text = draft.read_text(encoding="utf-8")
    assert SEEDED_SECRET in text
    draft.write_text(text.replace(SEEDED_SECRET, LITERAL), encoding="utf-8")  # the user pasted the value
    line = next(i for i, t in enumerate(text.splitlines(), 1) if SEEDED_SECRET in t)

    result = tenantdeck("pull", "--draft", str(draft), env=env)
    assert result.exit_code == 0, result.output
    assert LITERAL not in draft.read_text(encoding="utf-8")
    bak = (tmp_path / "d.yaml.bak").read_text(encoding="utf-8")
    assert LITERAL not in bak
    assert bak == text  # the previous version, with the reference where the value was, nothing else changed
    assert f"note: {draft}:{line}: apps[0].sms.twilioAuthToken: the literal secret is now {SEEDED_SECRET}" in (
        result.output
    )
    assert LITERAL not in result.output


def test_an_unchanged_draft_still_gets_a_plain_bak(tmp_path: Path, env: dict[str, str]) -> None:
    draft = tmp_path / "d.yaml"
    assert tenantdeck("pull", "--draft", str(draft), env=env).exit_code == 0
    text = draft.read_text(encoding="utf-8") + "# a comment of mine\n"
    draft.write_text(text, encoding="utf-8")
    assert tenantdeck("pull", "--draft", str(draft), env=env).exit_code == 0
    assert (tmp_path / "d.yaml.bak").read_text(encoding="utf-8") == text


# --- init: .gitignore and a schema that travels --------------------------------------------------------------


def test_init_adds_gitignore_entries_once(tmp_path: Path) -> None:
    ignore = tmp_path / ".gitignore"
    ignore.write_text("node_modules/\n*.bak", encoding="utf-8")  # the user's own, no final newline
    assert tenantdeck("init", str(tmp_path / "a.yaml")).exit_code == 0
    assert tenantdeck("init", str(tmp_path / "b.yaml")).exit_code == 0
    assert tenantdeck("init", str(tmp_path / "a.yaml"), "--force").exit_code == 0
    lines = ignore.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == ["node_modules/", "*.bak"]
    assert lines.count(".tenantdeck/*") == 1 and lines.count("*.bak") == 1
    assert "!.tenantdeck/draft.schema.json" in lines
    assert len(lines) == len(set(lines))


def test_init_creates_a_gitignore_that_git_honours(tmp_path: Path, env: dict[str, str]) -> None:
    """Workspace and backups stay out of git; the draft, its lock file (the committable base) and the schema its
    modeline names go in."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    project = tmp_path / "project"  # the sandbox's data directory stays outside it
    project.mkdir()
    draft = project / "tenantdeck.yaml"
    assert tenantdeck("init", str(draft), env=env).exit_code == 0
    assert tenantdeck("init", str(draft), "--force", env=env).exit_code == 0  # a .bak
    assert tenantdeck("pull", "--draft", str(draft), env=env).exit_code == 0  # a workspace with the fingerprint key
    assert (project / "tenantdeck.yaml.bak").exists() and (project / ".tenantdeck" / "tenantdeck").is_dir()
    genv = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run([git, "init", "-q", str(project)], check=True, env=genv)
    subprocess.run([git, "-C", str(project), "add", "-A"], check=True, env=genv)
    staged = subprocess.run(
        [git, "-C", str(project), "diff", "--cached", "--name-only"], capture_output=True, text=True, check=True,
        env=genv,
    ).stdout.split()
    assert sorted(staged) == [".gitignore", ".tenantdeck/draft.schema.json", "tenantdeck.lock.json", "tenantdeck.yaml"]
