"""The package a stranger installs: a wheel built from this tree, installed apart from it, runs and says one version.

The wheel is built offline (the PEP 517 backend: setuptools is a test dependency) from a copy of the files a build
reads, once for the whole run (``tests/built_package.py``), so the source tree is never written to, and installed
with ``--target`` into a scratch folder that is put first on the path of a child interpreter. That child refuses
to run unless ``tenantdeck`` was imported from the wheel's files, so the editable install of the source tree cannot
stand in for it.
"""

from __future__ import annotations

import email
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.built_package import built

ROOT = Path(__file__).resolve().parent.parent

#: runs ``tenantdeck`` from the folder given first, after checking that is where the package comes from
DRIVER = """
import sys
site = sys.argv[1]
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()]
sys.path.insert(0, site)
import tenantdeck
assert tenantdeck.__file__.startswith(site), tenantdeck.__file__
sys.argv = ["tenantdeck", *sys.argv[2:]]
from tenantdeck.launch import main
main()
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built("wheel", tmp_path_factory)


def metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return email.message_from_bytes(archive.read(name))


def test_the_version_has_one_source() -> None:
    """pyproject.toml reads the version from tenantdeck.__version__: one place to change."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and "version" in project["dynamic"]


def test_wheel_metadata_is_a_package_page(wheel: Path) -> None:
    import tenantdeck

    meta = metadata(wheel)
    assert meta["Version"] == tenantdeck.__version__
    assert meta["License-Expression"] == "MIT" and meta["License-File"] == "LICENSE"
    assert "Environment :: Console" in meta.get_all("Classifier") and meta["Keywords"]
    def names(extra: str | None) -> set[str]:
        """The distributions required by the package itself (``extra`` None) or by one of its extras."""
        out = set()
        for requirement in meta.get_all("Requires-Dist"):
            spec, _, marker = requirement.partition(";")
            if (f'extra == "{extra}"' in marker) if extra else "extra ==" not in marker:
                out.add(spec.split(">")[0].split("<")[0].split("=")[0].strip())
        return out

    # imported by tenantdeck itself, so declared (not only pulled in by Textual or FastAPI)
    assert {"textual", "httpx", "pydantic", "rich", "starlette", "fastapi"} <= names(None)
    assert "ruff" in names("dev") and "ruff" not in names("test") | names(None)  # a dev tool, not a test need
    page = meta.get_payload()
    assert "pip install tenantdeck" in page
    # a package index has no repository beside the page: no relative link or image may be on it
    assert "](" not in page.replace("](http", "")


def test_the_installed_wheel_runs_apart_from_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    import tenantdeck

    site = tmp_path / "site"
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                                "--target", str(site), str(wheel)], capture_output=True, text=True, timeout=300,
                               check=False)
    assert installed.returncode == 0, installed.stderr
    work = tmp_path / "work"
    work.mkdir()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", DRIVER, str(site), *args], cwd=work, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=120, check=False)

    version = run("--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"tenantdeck, version {tenantdeck.__version__}"
    # the package data (sample, schema, themes) travel in the wheel: init writes the sample, validate checks it
    assert run("init", "d.yaml").returncode == 0
    checked = run("validate", "d.yaml")
    assert checked.returncode == 0, checked.stderr
    assert run("schema").stdout.startswith("{")


def test_pip_show_names_the_authors_and_the_project_urls(wheel: Path, tmp_path: Path) -> None:
    """What `pip show` prints of the installed wheel (issue 38: it had neither URLs nor authors)."""
    site = tmp_path / "site"
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                                "--target", str(site), str(wheel)], capture_output=True, text=True, timeout=300,
                               check=False)
    assert installed.returncode == 0, installed.stderr
    shown = subprocess.run([sys.executable, "-m", "pip", "show", "-v", "tenantdeck"], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(site)}, timeout=120, check=False)
    assert shown.returncode == 0, shown.stderr
    fields = dict(line.split(": ", 1) for line in shown.stdout.splitlines() if ": " in line)
    assert fields["Location"] == str(site), shown.stdout  # the wheel's, not the editable install's
    assert fields["Author"] == "The tenantdeck authors"
    assert fields["Home-page"].startswith("https://"), shown.stdout
    assert "Homepage, https://" in shown.stdout and "Documentation, https://" in shown.stdout, shown.stdout


def test_the_wheel_holds_every_data_file_of_the_package(wheel: Path) -> None:
    """Themes, the draft's schema and the sample data are read at run time from the package: each file of the tree
    is in the wheel (a pattern of package-data that missed one would be found only by a user)."""
    src = ROOT / "src"
    wanted = {str(p.relative_to(src)) for folder in ("themes", "schema", "data")
              for p in (src / "tenantdeck" / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts
              and p.suffix != ".py"}
    assert wanted
    with zipfile.ZipFile(wheel) as archive:
        assert wanted <= set(archive.namelist()), wanted - set(archive.namelist())
