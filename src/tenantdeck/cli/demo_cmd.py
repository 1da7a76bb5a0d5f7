"""`tenantdeck run-demo`: the main job on a fresh machine, against the embedded sandbox.

It runs the real commands, as separate processes, exactly as a user would type them, and prints each one first:
a sample draft written and validated offline, the diff it would push, then the everyday loop on the sandbox
account: pull, change one toggle (a one-line change in the draft), diff, push, diff again (in sync), history.
Nothing here is simulated; it needs no account and no network.
"""

from __future__ import annotations

import difflib
import os
import shlex
import subprocess
import sys
from pathlib import Path

import click

from tenantdeck import exitcodes


def _colour() -> bool:
    from tenantdeck.cli.output import color_enabled

    return color_enabled(sys.stdout)


def _run(args: list[str], *, ok: tuple[int, ...] = (0,)) -> int:
    click.secho(f"\n$ tenantdeck {shlex.join(args)}", fg="cyan", bold=True, color=_colour())
    done = subprocess.run([sys.executable, "-m", "tenantdeck", *args], check=False)
    if done.returncode not in ok:
        raise click.ClickException(f"`tenantdeck {args[0]}` exited {done.returncode}; see above")
    return done.returncode


def _step(title: str) -> None:
    click.secho(f"\n== {title}", bold=True, color=_colour())


def _flip_one_toggle(draft: Path) -> str:
    """Turn one toggle of the first widget around with the comment-preserving save; returns the text diff."""
    from tenantdeck import safefile
    from tenantdeck.draft import load_draft, save_draft
    from tenantdeck.draft.yamlsource import MAX_BYTES

    before = safefile.read_text(draft, MAX_BYTES)
    result = load_draft(draft)
    if result.draft is None:
        raise click.ClickException(f"{draft} did not load after pull")
    widget = next((w for a in result.draft.apps for w in a.widgets if w.main is not None), None)
    if widget is None or widget.main is None:
        raise click.ClickException("the sandbox account has no widget to change")
    widget.main.send_gifs = not widget.main.send_gifs
    save_draft(draft, result.draft, original_text=before)
    after = safefile.read_text(draft, MAX_BYTES)
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), str(draft), str(draft), n=0, lineterm="")
    return "\n".join(lines)


def make_demo_dir(workdir: Path, elsewhere: str | None = None) -> None:
    """Create the demo's folder, or stop with one line (exit 6) naming it and how to put it elsewhere: on a read-only
    HOME, ``make run`` (the README's first command) ended in a traceback."""
    try:
        workdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        from tenantdeck import exitcodes
        from tenantdeck.cli.sync_common import fail
        from tenantdeck.targets import ENV_DATA_DIR

        place = f"{elsewhere} or {ENV_DATA_DIR}" if elsewhere else ENV_DATA_DIR
        fail(f"cannot create the demo folder {workdir}: {exc.strerror or exc}; set {place} to a writable folder",
             exitcodes.WRITE_FAILED)


@click.command()
@click.option(
    "--dir", "workdir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Where the demo drafts live  [default: demo/ in the user data dir]",
)
def command(workdir: Path | None) -> None:
    """The main job on a fresh machine: the sample draft and the pull/diff/push loop against the sandbox."""
    from tenantdeck.targets import ENV_BASE_URL, ENV_DATA_DIR, ENV_PROFILE, SANDBOX_DB, data_dir

    workdir = workdir or data_dir() / "demo"
    make_demo_dir(workdir, "--dir")
    sample, account = workdir / "sample.yaml", workdir / "account.yaml"
    os.environ.pop(ENV_PROFILE, None)
    os.environ.pop(ENV_BASE_URL, None)  # the demo always talks to the built-in `local` sandbox ...
    # ... on its own database, never the user's: earlier pushes to their sandbox cannot break the demo
    sandbox_dir = (workdir / "sandbox").resolve()
    os.environ[ENV_DATA_DIR] = str(sandbox_dir)
    click.echo(
        f"tenantdeck demo: drafts in {workdir}; target: the embedded sandbox (profile `local`) on the demo's own "
        f"database {sandbox_dir / SANDBOX_DB}"
    )

    _step("1. A sample draft, checked offline")
    if not sample.exists():
        _run(["init", str(sample)])
    _run(["validate", str(sample)])

    _step("2. What pushing the sample would change on the sandbox (exit 2 = changes to push; 3 = the sandbox "
          "already has an app of a name the sample would create: push says how to adopt it or create another)")
    _run(["diff", "--draft", str(sample), "--profile", "local"],
         ok=(exitcodes.OK, exitcodes.CHANGES, exitcodes.CONFLICT))

    _step("3. The everyday loop: pull the account, change one toggle, review, push")
    _run(["pull", "--draft", str(account), "--profile", "local"])
    click.secho("\n# one toggle turned around in the draft (comments and order kept):", fg="cyan", color=_colour())
    click.echo(_flip_one_toggle(account))
    _run(["diff", "--draft", str(account), "--profile", "local"], ok=(exitcodes.CHANGES,))
    _run(["push", "--yes", "--draft", str(account), "--profile", "local"])
    _run(["diff", "--draft", str(account), "--profile", "local"], ok=(exitcodes.OK,))
    _run(["history", "--draft", str(account)])
    click.echo(f"\nDone. Edit {sample} or {account} and run the same commands; `tenantdeck --help` lists them all.")
