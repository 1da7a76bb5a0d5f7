"""Issue 38 item 9: the docs say what the package does. Every exit-code list in the docs names exactly the codes of
tenantdeck/exitcodes.py; the source distribution holds what docs/package.md promises (the README's screenshots and
the docs) and is built as that page says; `pip show` has the authors; profile names complete in the shell."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tenantdeck import exitcodes
from tests.built_package import built

ROOT = Path(__file__).resolve().parent.parent
CODES = {value for name, value in vars(exitcodes).items() if name.isupper() and isinstance(value, int)}


def section(page: str, heading: str) -> str:
    """The text of ``page`` from ``heading`` to the next heading (or the next blank line for a bold heading)."""
    text = (ROOT / page).read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n\n", start) if heading.startswith("**") else text.find("\n#", start + len(heading))
    return text[start:end if end != -1 else None]


def test_the_readme_table_has_every_exit_code() -> None:
    rows = {int(code) for code in re.findall(r"^\| (\d+) \|", section("README.md", "## Exit codes"), flags=re.M)}
    assert rows == CODES


def test_the_package_page_names_every_exit_code() -> None:
    text = section("docs/package.md", "## Exit codes")
    named = {int(code) for code in re.findall(r"(?:^|, |\n)(\d+) [a-z`(]", text.split("\n", 1)[1])}
    assert named == CODES, (named ^ CODES)


def test_the_ci_page_names_every_exit_code() -> None:
    named = {int(code) for code in re.findall(r"`(\d+)`", section("docs/ci.md", "**Exit codes**"))}
    assert named == CODES, (named ^ CODES)


@pytest.mark.slow
def test_the_sdist_holds_what_the_package_page_promises(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Built as docs/package.md says (the PEP 517 backend, offline here), from a copy of the tree."""
    with tarfile.open(built("sdist", tmp_path_factory)) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
        info = sdist.extractfile(next(n for n in sdist.getnames() if n.endswith("/PKG-INFO")))
        assert info is not None
        pkg_info = info.read().decode()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shots = set(re.findall(r"\]\((screenshots/[^)\s]+)\)", readme))
    assert shots and shots <= names, shots - names  # every screenshot the README shows
    docs = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert docs <= names and "README.md" in names, docs - names
    assert "Author: The tenantdeck authors" in pkg_info or "Author-email" in pkg_info or \
        "The tenantdeck authors" in pkg_info
    page = (ROOT / "docs" / "package.md").read_text(encoding="utf-8")
    assert "python -m build" in page  # how the sdist is built is documented


def test_profile_names_complete(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "profiles.yaml").write_text("profiles:\n  staging: {base_url: 'https://s.example'}\n"
                                          "  production: {base_url: 'https://p.example'}\n")
    env = {**os.environ, "TENANTDECK_CONFIG_DIR": str(config), "_TENANTDECK_COMPLETE": "bash_complete"}
    for words, cword, want in (("tenantdeck diff --profile pr", "3", "production"),
                               ("tenantdeck promote staging pro", "3", "production"),
                               ("tenantdeck push --profile ", "3", "local")):
        done = subprocess.run([sys.executable, "-m", "tenantdeck"], env={**env, "COMP_WORDS": words,
                              "COMP_CWORD": cword}, capture_output=True, text=True, timeout=60, check=False)
        assert f"plain,{want}" in done.stdout.splitlines(), (words, done.stdout, done.stderr)
    # a promotion's destination is another profile than its source
    done = subprocess.run([sys.executable, "-m", "tenantdeck"], env={**env, "COMP_WORDS": "tenantdeck promote staging ",
                          "COMP_CWORD": "3"}, capture_output=True, text=True, timeout=60, check=False)
    offered = {line.split(",", 1)[1] for line in done.stdout.splitlines() if line.startswith("plain,")}
    assert offered == {"local", "production"}, (done.stdout, done.stderr)


@pytest.mark.slow
def test_the_package_pages_quick_start_runs_as_written(tmp_path: Path) -> None:
    """docs/package.md's quick start, line by line in an empty folder and HOME, on the embedded sandbox and with no
    terminal (the editor's line left out: it needs one): each command exits 0. Its `init` then `pull` used to leave
    the sample's app and the sandbox's app of the same name side by side, and `diff`/`push` stopped on a conflict."""
    text = section("docs/package.md", "## Quick start")
    (block,) = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    lines = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    lines = [line for line in lines if line and not line.startswith("tenantdeck edit")]
    assert len(lines) >= 4 and any(line.startswith("tenantdeck push") for line in lines)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")} | {
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"), "NO_COLOR": "1",
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")}
    for line in lines:
        done = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, (line, done.returncode, done.stderr[-2000:])
