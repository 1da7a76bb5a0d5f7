"""Files a draft names (issue 32 items 1, 2 and 8), through the real commands against the local sandbox.

A pull request controls the draft and every file beside it. A certificate that is a link out of the draft's folder
(to a CI secret), a ``../`` path, a link to ``/dev/zero``, a FIFO, a folder, a missing, oversized or empty file is
a located error from ``validate`` (at the ``p8:`` line) and from ``diff`` and ``push`` before anything is sent: the
sandbox's certificate store is unchanged, and none of it is called a conflict. Each command runs under a timeout:
a regression that blocks on the FIFO fails instead of hanging the suite.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tenantdeck.models.app import PushCertificates
from tests.sync.helpers_push import app_named, edit_draft
from tests.test_hostile_files import zero_device

P8 = (b"-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgTm90QVJlYWxLZXk=\n"
      b"-----END PRIVATE KEY-----\n")
APP = "Acme Support"
# spelt here rather than imported, so that this file runs (and fails) against the code before the fix too
ENV_DIRS = "TENANTDECK_CERTIFICATE_DIRS"
MAX_BYTES = 64 * 1024

pytestmark = pytest.mark.timeout(60)


def test_the_names_this_file_spells_are_the_modules() -> None:
    from tenantdeck.models import certfiles

    assert (certfiles.ENV_DIRS, certfiles.MAX_BYTES) == (ENV_DIRS, MAX_BYTES)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"TENANTDECK_DATA_DIR": str(tmp_path / "data"), "TENANTDECK_CONFIG_DIR": str(tmp_path / "config"),
            "TENANTDECK_BASE_URL": "", "NO_COLOR": "1", ENV_DIRS: "",
            "TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}


def tenantdeck(*args: str, env: dict[str, str]) -> Result:
    return CliRunner().invoke(cli, list(args), env=env)


@pytest.fixture
def draft(tmp_path: Path, env: dict[str, str]) -> Path:
    path = tmp_path / "repo" / "tenantdeck.yaml"
    path.parent.mkdir()
    result = tenantdeck("pull", "--draft", str(path), env=env)
    assert result.exit_code == 0, result.output
    return path


def stored_certificates(env: dict[str, str]) -> dict[str, bool]:
    """What the sandbox holds for the app: the proof that nothing was uploaded."""
    from tenantdeck.targets import local_target

    target = local_target(env)

    async def go() -> dict[str, bool]:
        async with target.client() as client:
            app = next(a for a in await client.list_apps() if a.name == APP)
            return dict(await client.query_certificates(app.id))

    return asyncio.run(go())


def _outside(repo: Path) -> str:
    secret = repo.parent / "ci-secret.p8"
    secret.write_bytes(P8)  # a valid key: a regression would upload it, and the sandbox would store it
    (repo / "certs").mkdir()
    (repo / "certs" / "apns.p8").symlink_to(secret)
    return "certs/apns.p8"


def _dotdot(repo: Path) -> str:
    (repo.parent / "outside.p8").write_bytes(P8)
    return "../outside.p8"


def _in_certs(make: Callable[[Path], None]) -> Callable[[Path], str]:
    def setup(repo: Path) -> str:
        (repo / "certs").mkdir()
        make(repo / "certs" / "apns.p8")
        return "certs/apns.p8"
    return setup


def _hidden_target(folder: str, name: str) -> Callable[[Path], str]:
    """``certs/apns.p8`` linked to ``FOLDER/NAME`` in the draft's folder, which holds a valid key: only the rule
    on hidden files and folders can refuse it (trial J, J4: ``.git/config``, the workspace's secret key)."""
    def setup(repo: Path) -> str:
        target = repo / folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(P8)
        (repo / "certs").mkdir()
        (repo / "certs" / "apns.p8").symlink_to(Path("..") / folder / name)
        return "certs/apns.p8"
    return setup


def _in_hidden_folder(repo: Path) -> str:
    (repo / ".secrets").mkdir()
    (repo / ".secrets" / "apns.p8").write_bytes(P8)
    return ".secrets/apns.p8"


#: what ``actions/checkout`` leaves in ``.git/config``: not a key, so a link in a folder not hidden is refused too
GIT_CONFIG = b'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0LXRva2Vu\n'

#: case -> (what the draft writes, made in the draft's folder; what the error says)
CASES: dict[str, tuple[Callable[[Path], str], str]] = {
    "symlink into .git": (_hidden_target(".git", "config"), "leads into '.git', a hidden file or folder"),
    "symlink to the workspace's key": (_hidden_target(".tenantdeck/tenantdeck", "secret.key"),
                                       "leads into '.tenantdeck', a hidden file or folder"),
    "symlink to .env": (_hidden_target("", ".env"), "leads into '.env', a hidden file or folder"),
    "a hidden folder": (_in_hidden_folder, "leads into '.secrets', a hidden file or folder"),
    "not a key": (_in_certs(lambda p: p.write_bytes(GIT_CONFIG)), "holds no '-----BEGIN PRIVATE KEY-----' block"),
    "symlink to a file outside": (_outside, "outside the draft's folder"),
    "../outside.p8": (_dotdot, "outside the draft's folder"),
    "symlink to a zero device": (_in_certs(lambda p: p.symlink_to(zero_device(p.parent))), "character device"),
    "FIFO": (_in_certs(os.mkfifo), "named pipe (FIFO)"),
    "directory": (_in_certs(lambda p: p.mkdir()), "is a directory"),
    "missing": (lambda repo: "certs/missing.p8", "no such file"),
    "oversized": (_in_certs(lambda p: p.write_bytes(b"x" * (MAX_BYTES + 1))),
                  f"too large ({MAX_BYTES + 1} bytes; at most {MAX_BYTES})"),
    "empty": (_in_certs(lambda p: p.write_bytes(b"")), "is empty"),
}


def _use(draft: Path, written: str) -> int:
    """Name ``written`` as the app's p8 certificate; returns the 1-based line of the ``p8:`` key."""
    edit_draft(draft, lambda d: app_named(d, APP).__setattr__("push_certificates", PushCertificates(p8=written)))
    lines = draft.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip().startswith("p8:"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_certificate_is_a_located_error_and_nothing_is_sent(
        case: str, draft: Path, env: dict[str, str]) -> None:
    setup, says = CASES[case]
    before = stored_certificates(env)
    line = _use(draft, setup(draft.parent))
    index = [a.name for a in loaded_without_checks(draft).apps].index(APP)
    where = f"{draft}:{line}:"
    key = f"apps[{index}].push_certificates.p8"

    checked = tenantdeck("validate", str(draft), env=env)
    assert checked.exit_code == exitcodes.ERROR, checked.output
    (located,) = [ln for ln in checked.stdout.splitlines() if key in ln]
    assert located.startswith(where) and ": error: " in located and says in located, located
    assert "invalid" in checked.stderr

    for command in (["diff", str(draft)], ["plan", str(draft), "-o", str(draft.parent / "plan.json")],
                    ["push", "--draft", str(draft), "--yes"]):
        result = tenantdeck(*command, env=env)
        assert result.exit_code == exitcodes.ERROR, (command, result.output)
        assert says in result.output and key in result.output, (command, result.output)
        assert "conflict" not in result.output.lower(), (command, result.output)
        assert "Traceback" not in result.output
    assert stored_certificates(env) == before


def loaded_without_checks(draft: Path) -> object:
    from tenantdeck.draft import load_draft

    result = load_draft(draft)
    assert result.draft is not None
    return result.draft


def test_certificates_kept_elsewhere_are_read_only_with_the_explicit_opt_in(
        draft: Path, env: dict[str, str]) -> None:
    """``TENANTDECK_CERTIFICATE_DIRS`` (set by whoever runs the command, never read from a file) names the folder:
    the same link is then uploaded."""
    written = _outside(draft.parent)
    _use(draft, written)
    assert tenantdeck("validate", str(draft), env=env).exit_code == exitcodes.ERROR
    allowed = env | {ENV_DIRS: str(draft.parent.parent)}
    assert tenantdeck("validate", str(draft), env=allowed).exit_code == exitcodes.OK
    result = tenantdeck("push", "--draft", str(draft), "--yes", env=allowed)
    assert result.exit_code == exitcodes.OK, result.output
    assert stored_certificates(env)["p8"] is True
    assert tenantdeck("diff", str(draft), env=allowed).exit_code == exitcodes.OK  # uploaded: in sync


def test_a_certificate_inside_the_drafts_folder_is_uploaded(draft: Path, env: dict[str, str]) -> None:
    (draft.parent / "certs").mkdir()
    (draft.parent / "certs" / "apns.p8").write_bytes(P8)
    _use(draft, "certs/apns.p8")
    assert tenantdeck("validate", str(draft), env=env).exit_code == exitcodes.OK
    result = tenantdeck("push", "--draft", str(draft), "--yes", env=env)
    assert result.exit_code == exitcodes.OK, result.output
    assert stored_certificates(env)["p8"] is True


@pytest.mark.parametrize("kind", ["FIFO", "zero device"])
@pytest.mark.parametrize("which", ["draft", "policies file"])
def test_a_draft_or_policies_file_that_is_a_fifo_or_a_device_is_an_error_not_a_hang(
        which: str, kind: str, draft: Path, env: dict[str, str]) -> None:
    hostile = draft if which == "draft" else draft.with_name("tenantdeck.policies.yaml")
    if which == "draft":
        hostile.unlink()
    if kind == "FIFO":
        os.mkfifo(hostile)
    else:
        hostile.symlink_to(zero_device(draft.parent))
    says = "named pipe (FIFO)" if kind == "FIFO" else "character device"
    for command in (["validate", str(draft)], ["diff", str(draft)]):
        result = tenantdeck(*command, env=env)
        # diff notes a policies file it cannot use (as it does one with a syntax error) and still diffs
        expected = exitcodes.OK if which == "policies file" and command[0] == "diff" else exitcodes.ERROR
        assert result.exit_code == expected, (command, result.output)
        assert says in result.output and str(hostile) in result.output, (command, result.output)
        assert "Traceback" not in result.output
