"""``tenantdeck edit [DRAFT]`` (and ``tenantdeck`` alone): open the draft in the terminal editor.

With no draft file there, a terminal is asked whether to write the commented sample first. ``--demo`` is what
``make run`` opens: the embedded sandbox's account, pulled into a draft in the demo directory (on the demo's own
sandbox database, never the user's), so every app has a base and the change states mean something.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from tenantdeck.cli.options import draft_input


@click.command("edit")
@draft_input("The draft to open (created from the sample if it does not exist and you agree).")
@click.option("--demo", is_flag=True, help="Open the embedded sandbox's demo account (what `make run` shows).")
@click.option("--events-port", type=click.IntRange(0, 65535), default=None, metavar="PORT",
              help="Port of the Events screen's receiver on 127.0.0.1 (default: events_port in settings.yaml, "
                   "else 8788; 0 picks a free one).")
@click.option("--events-basic-auth", metavar="USER:${ENV_VAR}", default=None,
              help="Make the Events screen's receiver require this Basic Auth (password from the variable).")
def command(draft_path: Path, demo: bool, events_port: int | None, events_basic_auth: str | None) -> None:
    """Open the draft in the terminal editor."""
    from tenantdeck.console import on_terminal

    if not on_terminal():  # a CI job or a pipe: the editor would wait forever for keys
        from tenantdeck import exitcodes
        from tenantdeck.cli.output import error

        without = ("`tenantdeck run-demo` runs the demo's pull, diff and push without it" if demo else
                   f"without one, run `tenantdeck validate {draft_path}`, `tenantdeck diff {draft_path}` or "
                   f"`tenantdeck push --draft {draft_path} --yes`")
        error(f"the editor needs a terminal (stdin and stdout are not one here, as in a CI job or a pipe); {without}")
        raise SystemExit(exitcodes.USAGE)
    credentials = None
    if events_basic_auth is not None:
        from tenantdeck.cli.listen_cmd import parse_basic_auth

        credentials = parse_basic_auth(events_basic_auth)
    if demo:
        draft_path = _demo_draft()
    elif not draft_path.exists():
        if not click.confirm(f"{draft_path} does not exist. Write the commented sample draft there?", default=True):
            return
        from tenantdeck.cli.main_run import run_cli

        if run_cli(["init", str(draft_path)]) != 0:
            return
    from tenantdeck.tui.app import TenantdeckApp

    lab = None
    if events_port is not None or credentials is not None:
        from tenantdeck.locations import config_dir
        from tenantdeck.prefs.settings import load
        from tenantdeck.tui.event_lab import EventLab

        port = events_port if events_port is not None else load(config_dir()).events_port
        lab = EventLab(port, basic_auth=credentials)
    app = TenantdeckApp(draft_path, event_lab=lab)
    app.run()
    if app.return_code:  # 128 + the signal after SIGHUP/SIGTERM (tui/safety.py)
        from tenantdeck.console import exit_after_editor

        exit_after_editor(app.return_code)


def _demo_draft() -> Path:
    """The demo account's draft: pulled from the demo's own sandbox database the first time."""
    from tenantdeck.cli.demo_cmd import make_demo_dir
    from tenantdeck.targets import ENV_BASE_URL, ENV_DATA_DIR, ENV_PROFILE, data_dir

    workdir = data_dir() / "demo"
    os.environ.pop(ENV_PROFILE, None)
    os.environ.pop(ENV_BASE_URL, None)
    os.environ[ENV_DATA_DIR] = str((workdir / "sandbox").resolve())
    os.environ["TENANTDECK_DEMO_SANDBOX"] = os.environ[ENV_DATA_DIR]  # the editor names it (tui.profile)
    make_demo_dir(workdir)
    draft = workdir / "tenantdeck.yaml"
    from tenantdeck.targets import local_target

    if not draft.exists():
        from tenantdeck.sync.remote.pull import pull_target

        click.echo(f"Pulling the sandbox's demo account into {draft} ...", err=True)
        pull_target(local_target(), draft)  # records the demo's sandbox: the plain CLI on this draft reaches it
    else:
        _record_demo_target(draft, local_target())
    _demo_policies(draft)
    return draft


def _demo_policies(draft: Path) -> None:
    """The demo's fleet policies beside its draft (a few rules, one violation to find), unless the user has
    written their own there."""
    from importlib.resources import files

    from tenantdeck.policies.model import policies_path

    path = policies_path(draft)
    if not path.exists():
        path.write_text(files("tenantdeck").joinpath("data/demo.policies.yaml").read_text(encoding="utf-8"),
                        encoding="utf-8")


def _record_demo_target(draft: Path, target: object) -> None:
    """A demo draft pulled before drafts recorded their account gets the demo sandbox's identity now, so a plain
    `tenantdeck diff` on it reads the demo's sandbox rather than the default one."""
    from tenantdeck.sync.workspace.binding import identity_of
    from tenantdeck.sync.workspace.state import Workspace, WorkspaceError

    workspace = Workspace(draft)
    try:
        meta = workspace.read_meta()
        if meta is not None and not meta.get("identity"):
            workspace.record_identity(identity_of(target))
    except (WorkspaceError, OSError):
        return  # the editor reports a broken workspace itself
