"""docs/ci.md's steps, run as written, from fresh clones with an empty HOME, against the sandbox on loopback.

The story a team lives: an admin pulls the account and commits the draft with its base; someone changes a widget
in the dashboard behind tenantdeck's back; a pull request changes another field of the same widget. The
pull-request steps validate and plan it (the plan names only that change); the main steps push it from another
fresh clone. The dashboard's change must still be on the service (a fresh checkout never writes old values back),
the history must record the push, and the advanced base must be committed back to the repository. The GitHub
Actions workflow on the same page must run the same lines. Then the promotion steps carry the pulled account
to production, an account that has none of its apps yet.

The steps run a ``tenantdeck`` installed in a fresh virtual environment from a wheel and from a source
distribution built from this tree (:func:`installed`), as a team's CI installs the package, not the source tree.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.built_package import built
from tests.loopback import Sandbox

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "ci.md"
pytestmark = [pytest.mark.e2e, pytest.mark.slow]

@pytest.fixture(scope="module", params=["wheel", "sdist"])
def installed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh virtual environment where ``pip install`` put the package from a wheel or from
    an sdist. Its dependencies come from this test environment (a .pth line: nothing is downloaded), whose
    editable install of the source tree is not seen there (that is a .pth of its own site folder)."""
    import sysconfig
    import venv

    kind = str(request.param)
    package = built(kind, tmp_path_factory)
    env_dir = tmp_path_factory.mktemp(f"venv-{kind}")
    venv.create(env_dir, with_pip=False)
    bin_dir = env_dir / "bin"
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(subprocess.run([str(bin_dir / "python"), "-c", purelib], capture_output=True, text=True, check=True,
                               timeout=60).stdout.strip())
    (site / "test-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "-q",
                           "--no-deps", "--no-index", "--no-build-isolation", str(package)], capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    where = subprocess.run([str(bin_dir / "python"), "-c", "import tenantdeck; print(tenantdeck.__file__)"],
                           capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    assert where.startswith(str(site)), where  # the installed package, not the source tree
    assert (bin_dir / "tenantdeck").is_file()
    # every file of the package, whichever kind was installed (each story runs from one kind only)
    source = ROOT / "src" / "tenantdeck"
    shipped = {p.relative_to(source) for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    landed = {p.relative_to(site / "tenantdeck") for p in (site / "tenantdeck").rglob("*") if p.is_file()}
    assert shipped - landed == set(), f"{kind} lacks {sorted(map(str, shipped - landed))[:10]}"
    return bin_dir


def steps(name: str) -> str:
    """The shell block of docs/ci.md whose first line is ``# ci: NAME``."""
    for block in re.findall(r"```sh\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S):
        if block.startswith(f"# ci: {name}\n"):
            return block
    raise AssertionError(f"docs/ci.md has no `# ci: {name}` block")


def test_the_github_workflow_runs_the_documented_lines() -> None:
    (workflow,) = re.findall(r"```yaml\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
    jobs = yaml.safe_load(workflow)["jobs"]
    runs = {job: "\n".join(step.get("run", "") for step in spec["steps"]) for job, spec in jobs.items()}
    for job, block in (("plan", "pull-request"), ("push", "main")):
        lines = [line for line in steps(block).splitlines() if line and not line.startswith("# ci:")]
        assert all(line in runs[job] for line in lines), (job, [line for line in lines if line not in runs[job]])


def git(*args: str, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def fresh_clone(tmp_path: Path, origin: Path, env: dict[str, str], name: str) -> tuple[Path, dict[str, str]]:
    """A clone of the repository in a new folder, with a HOME of its own (nothing of earlier jobs)."""
    home = tmp_path / f"home-{name}"
    home.mkdir()
    job_env = env | {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                     "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CACHE_HOME": str(home / ".cache")}
    git("clone", "-q", str(origin), str(tmp_path / name), cwd=tmp_path, env=job_env)
    return tmp_path / name, job_env


def shell(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, check=False)


def widget(values: dict[str, str], app_name: str) -> tuple[str, str, dict[str, Any]]:
    """(app id, widget id, settings) of the app's first widget, read from the service as the dashboard shows it."""
    from tenantdeck.api.client import ManagementClient

    async def read() -> tuple[str, str, dict[str, Any]]:
        async with ManagementClient(values["TENANTDECK_BASE_URL"], values["TENANTDECK_KEY"],
                                    values["TENANTDECK_SECRET"]) as client:
            (app,) = [a for a in await client.list_apps() if a.name == app_name]
            first = (await client.list_widgets(app.id))[0]
            return app.id, first.widget_id, first.settings

    return asyncio.run(read())


def dashboard_sets(values: dict[str, str], app_id: str, widget_id: str, settings: dict[str, Any]) -> None:
    from tenantdeck.api.client import ManagementClient

    async def write() -> None:
        async with ManagementClient(values["TENANTDECK_BASE_URL"], values["TENANTDECK_KEY"],
                                    values["TENANTDECK_SECRET"]) as client:
            await client.update_widget(app_id, widget_id, settings)

    asyncio.run(write())


# Each story runs from one kind of install, so both kinds run a whole story: the two stories share every command
# that matters to packaging (pull, validate, plan, push, promote), and running each story twice (once per kind)
# cost ~13 s of CPU for no line the other story does not run. What each kind installs is checked file by file by
# the `installed` fixture.
@pytest.mark.parametrize("installed", ["wheel"], indirect=True)
def test_pull_request_then_merge_pushes_only_the_change_and_keeps_the_dashboards(tmp_path: Path,
                                                                                installed: Path) -> None:
    service = Sandbox(tmp_path / "service.sqlite3", seed=True)
    production = Sandbox(tmp_path / "production.sqlite3", key="prod-key", secret="prod-secret")
    values, p_values = service.values, production.values
    try:
        base_env = {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")}
        bin_dir = str(installed)
        env = base_env | values | {
            "PATH": bin_dir + os.pathsep + base_env.get("PATH", ""),
            "GIT_AUTHOR_NAME": "ci", "GIT_AUTHOR_EMAIL": "ci@example.test",
            "GIT_COMMITTER_NAME": "ci", "GIT_COMMITTER_EMAIL": "ci@example.test",
        }

        def fresh(name: str) -> tuple[Path, dict[str, str]]:
            return fresh_clone(tmp_path, origin, env, name)

        # the repository, and an admin's first pull committed to it
        origin = tmp_path / "origin.git"
        git("init", "-q", "--bare", "-b", "main", str(origin), cwd=tmp_path, env=env)
        admin, admin_env = fresh("admin")
        pulled = shell("tenantdeck pull tenantdeck.yaml", admin, admin_env)
        assert pulled.returncode == 0, pulled.stderr
        (admin / ".gitignore").write_text(".tenantdeck/\n")
        git("add", "tenantdeck.yaml", "tenantdeck.lock.json", ".gitignore", cwd=admin, env=admin_env)
        git("commit", "-q", "-m", "the account as pulled", cwd=admin, env=admin_env)
        git("push", "-q", "origin", "HEAD:main", cwd=admin, env=admin_env)

        # the dashboard changes a toggle behind tenantdeck's back
        app_id, widget_id, settings = widget(values, "Acme Support")
        theirs = not settings["main"]["enable_threaded_replies"]
        dashboard_sets(values, app_id, widget_id, {**settings, "main": {**settings["main"],
                                                                        "enable_threaded_replies": theirs}})

        # a pull request changes another toggle of the same widget
        text = (admin / "tenantdeck.yaml").read_text()
        at = text.index("name: Acme Support")
        gifs = text.index("send_gifs: ", at)
        old = text[gifs:text.index("\n", gifs)]
        mine = old.endswith("false")
        (admin / "tenantdeck.yaml").write_text(text[:gifs] + f"send_gifs: {str(mine).lower()}" +
                                               text[gifs + len(old):])
        git("commit", "-q", "-am", "Acme Support: GIFs", cwd=admin, env=admin_env)
        git("push", "-q", "origin", "HEAD:main", cwd=admin, env=admin_env)  # (the merge, for this test)

        # the pull request's job
        pr, pr_env = fresh("pr-job")
        checked = shell(steps("pull-request"), pr, pr_env)
        assert checked.returncode == 0, checked.stderr
        assert json.loads((pr / "validate.json").read_text())["valid"] is True
        plan = json.loads((pr / "plan.json").read_text())
        changed = [(op["app_name"], [c["path"] for c in op["changes"]]) for op in plan["operations"]]
        assert changed == [("Acme Support", ["main.send_gifs"])], changed  # not the dashboard's toggle
        assert "send_gifs" in (pr / "plan.md").read_text() and "Allow GIFs" in (pr / "plan.md").read_text()

        # the merge's job
        main, main_env = fresh("main-job")
        pushed = shell(steps("main"), main, main_env)
        assert pushed.returncode == 0, pushed.stderr
        result = json.loads((main / "push.json").read_text())
        assert result["exit_code"] == 0 and result["result"]["counts"]["applied"] == 1
        history = json.loads((main / "history.json").read_text())
        assert [p["counts"]["applied"] for p in history["pushes"]] == [1]

        _, _, now = widget(values, "Acme Support")
        assert now["main"]["send_gifs"] is mine  # the pull request's change landed
        assert now["main"]["enable_threaded_replies"] is theirs  # the dashboard's is still there

        # the advanced base went back to the repository: the next job starts from it, and finds nothing to do
        log = git("log", "--format=%s", "origin/main", cwd=main, env=main_env)
        assert log.splitlines()[0] == "tenantdeck: base after push [skip ci]"
        after, after_env = fresh("next-job")
        again = shell("tenantdeck plan tenantdeck.yaml", after, after_env)
        assert again.returncode == 0, (again.stdout, again.stderr)  # in sync (the dashboard's change is drift)

        promote_the_pulled_account(values, p_values, fresh, admin, admin_env)
    finally:
        service.stop()
        production.stop()


def promote_the_pulled_account(values: dict[str, str], p_values: dict[str, str], fresh: Any, admin: Path,
                               admin_env: dict[str, str]) -> None:
    """The account as pulled (every setting the service reports, webhooks whose Basic Auth user it never reports,
    secrets as ${VAR} references) promoted by the usual promote step into production, which has none of its
    apps: production's section of the targets file is empty, and the job has the variables the draft sends."""
    git("pull", "-q", "origin", "main", cwd=admin, env=admin_env)
    (admin / "tenantdeck.targets.yaml").write_text("format: 1\ntargets:\n  production: {}\n")
    git("add", "tenantdeck.targets.yaml", cwd=admin, env=admin_env)
    git("commit", "-q", "-m", "production, a target", cwd=admin, env=admin_env)
    git("push", "-q", "origin", "HEAD:main", cwd=admin, env=admin_env)
    refs = set(re.findall(r"\$\{(\w+)\}", (admin / "tenantdeck.yaml").read_text()))
    assert refs, "the pulled draft refers to its secrets"
    secrets = {
        "STAGING_URL": values["TENANTDECK_BASE_URL"], "STAGING_KEY": values["TENANTDECK_KEY"],
        "STAGING_SECRET": values["TENANTDECK_SECRET"], "PROD_URL": p_values["TENANTDECK_BASE_URL"],
        "PROD_KEY": p_values["TENANTDECK_KEY"], "PROD_SECRET": p_values["TENANTDECK_SECRET"],
    } | {name: f"value-of-{name.lower()}" for name in refs}
    for run in ("promote-1", "promote-2"):
        job, job_env = fresh(run)
        job_env = {k: v for k, v in job_env.items() if not k.startswith("TENANTDECK_")} | secrets
        promoted = shell(steps("promote"), job, job_env)
        assert promoted.returncode == 0, promoted.stderr
        doc = json.loads((job / "promote.json").read_text())
        assert doc["exit_code"] == 0 and doc["refusal"] is None, doc["refusal"]
        if run == "promote-1":  # every app created in production, its ids committed in the targets file
            created = doc["result"]["created_apps"]
            assert set(created) == {a["name"] for a in yaml.safe_load((job / "tenantdeck.yaml").read_text())["apps"]}
            log = git("log", "--format=%s", "origin/main", cwd=job, env=job_env)
            assert log.splitlines()[0] == "tenantdeck: production after promotion [skip ci]"
        else:  # the committed base: nothing left to promote
            assert doc["plan"]["operations"] == [], doc["plan"]["operations"]
    assert all(secret not in (job / "promote.json").read_text() for secret in secrets.values()
               if secret.startswith("value-of-"))


@pytest.mark.parametrize("installed", ["sdist"], indirect=True)
def test_promotion_steps_first_into_an_account_that_has_the_apps_then_as_usual(tmp_path: Path,
                                                                               installed: Path) -> None:
    """docs/ci.md's promotion blocks from fresh clones, two sandboxes as two accounts: production already has the
    app (pushed there from elsewhere) and no lock file is committed for it; the usual promote step stops on the
    conflicts and names --prefer; the first-promotion step carries staging's values and commits production's base;
    after the next change on staging, the usual step promotes it and commits."""
    from tests.sync.test_promote import draft_text

    staging, production = Sandbox(tmp_path / "staging.sqlite3"), Sandbox(tmp_path / "production.sqlite3")
    s_values, p_values = staging.values, production.values
    try:
        base_env = {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")}
        env = base_env | {
            "PATH": str(installed) + os.pathsep + base_env.get("PATH", ""), "NO_COLOR": "1",
            "GIT_AUTHOR_NAME": "ci", "GIT_AUTHOR_EMAIL": "ci@example.test", "GIT_COMMITTER_NAME": "ci",
            "GIT_COMMITTER_EMAIL": "ci@example.test", "AUDIT_PASSWORD": "pw1",
            "STAGING_URL": s_values["TENANTDECK_BASE_URL"], "STAGING_KEY": s_values["TENANTDECK_KEY"],
            "STAGING_SECRET": s_values["TENANTDECK_SECRET"], "PROD_URL": p_values["TENANTDECK_BASE_URL"],
            "PROD_KEY": p_values["TENANTDECK_KEY"], "PROD_SECRET": p_values["TENANTDECK_SECRET"]}
        origin = tmp_path / "origin.git"
        git("init", "-q", "--bare", "-b", "main", str(origin), cwd=tmp_path, env=env)

        def fresh(name: str) -> tuple[Path, dict[str, str]]:
            return fresh_clone(tmp_path, origin, env, name)

        def gifs(values: dict[str, str]) -> bool:
            return bool(widget(values, "Acme")[2]["main"]["send_gifs"])

        # production has the app already: pushed there from a laptop, its lock file never committed
        laptop = tmp_path / "laptop"
        laptop.mkdir()
        (laptop / "tenantdeck.yaml").write_text(draft_text())
        made = shell("tenantdeck push --yes", laptop, env | p_values | {"HOME": str(laptop)})
        assert made.returncode == 0, made.stderr
        prod_id, prod_widget, _ = widget(p_values, "Acme")

        # the repository: the draft pushed to staging, production's id in the targets file
        admin, admin_env = fresh("admin")
        (admin / "tenantdeck.yaml").write_text(draft_text().replace("main: {send_gifs: false}",
                                                                    "main: {send_gifs: true}"))
        (admin / "tenantdeck.targets.yaml").write_text(
            f"format: 1\ntargets:\n  production:\n    apps:\n      Acme:\n        id: {prod_id}\n"
            f"        widgets:\n          Help desk: {{id: {prod_widget}}}\n")
        (admin / ".gitignore").write_text(".tenantdeck/\n")
        pushed = shell("tenantdeck push --yes", admin, admin_env | s_values)
        assert pushed.returncode == 0, pushed.stderr
        git("add", ".", cwd=admin, env=admin_env)
        git("commit", "-q", "-m", "staging", cwd=admin, env=admin_env)
        git("push", "-q", "origin", "HEAD:main", cwd=admin, env=admin_env)

        # the usual step has no base for production: it stops, naming --prefer
        job, job_env = fresh("promote-1")
        stopped = shell(steps("promote"), job, job_env)
        assert stopped.returncode == 3 and "--prefer" in stopped.stderr, stopped.stderr
        assert gifs(p_values) is False

        # the first promotion, once, then the lock file is the base
        job, job_env = fresh("first-promotion")
        first = shell(steps("first-promotion"), job, job_env)
        assert first.returncode == 0, first.stderr
        assert gifs(p_values) is True, first.stderr
        assert "tenantdeck.production.lock.json" in git("ls-tree", "--name-only", "origin/main", cwd=job,
                                                        env=job_env)

        # the next change reaches staging through the draft, production through the usual step
        git("pull", "-q", "origin", "main", cwd=admin, env=admin_env)
        text = (admin / "tenantdeck.yaml").read_text()
        (admin / "tenantdeck.yaml").write_text(text.replace("main: {send_gifs: true}", "main: {send_gifs: false}"))
        assert shell("tenantdeck push --yes", admin, admin_env | s_values).returncode == 0
        git("commit", "-q", "-am", "GIFs off", cwd=admin, env=admin_env)
        git("push", "-q", "origin", "HEAD:main", cwd=admin, env=admin_env)
        job, job_env = fresh("promote-2")
        promoted = shell(steps("promote"), job, job_env)
        assert promoted.returncode == 0, promoted.stderr
        assert gifs(p_values) is False
        doc = json.loads((job / "promote.json").read_text())
        assert doc["exit_code"] == 0 and [op["kind"] for op in doc["plan"]["operations"]] == ["update_widget"]
        log = git("log", "--format=%s", "origin/main", cwd=job, env=job_env)
        assert log.splitlines()[0] == "tenantdeck: production after promotion [skip ci]"
    finally:
        staging.stop()
        production.stop()
