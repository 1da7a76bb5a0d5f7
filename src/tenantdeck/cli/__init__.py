"""The `tenantdeck` command line.

Commands are registered by name and imported only when invoked (``LazyGroup``), so a fast command such as
``validate`` never imports httpx, FastAPI or Textual. Every command module is ``tenantdeck.cli.<name>_cmd`` and
exposes a click command called ``command``.

Exit codes are the ones in :mod:`tenantdeck.exitcodes`; usage errors exit 64 rather than click's default 2,
because 2 means "changes to push" for ``diff``.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from tenantdeck import __version__, exitcodes

#: command name -> (module under tenantdeck.cli, one-line help shown in `tenantdeck --help`)
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("init_cmd", "Write a commented, valid sample draft."),
    "validate": ("validate_cmd", "Check a draft offline; every problem with file, line and key."),
    "schema": ("schema_cmd", "Print the JSON Schema of the draft or of a config file (--KIND)."),
    "pull": ("pull_cmd", "Write the account's remote configuration into the draft."),
    "diff": ("diff_cmd", "Show what a push would change (three-way: base, draft, live)."),
    "plan": ("plan_cmd", "Save the operations a push would run, with remote fingerprints."),
    "push": ("push_cmd", "Apply the draft's changes (or a saved plan) to the service."),
    "promote": ("promote_cmd", "Push to one profile what another has for the draft's apps (staging -> production)."),
    "history": ("history_cmd", "Show the local audit log of pushes."),
    "doctor": ("doctor_cmd", "Check that the service is reachable and the credentials work."),
    "sandbox": ("sandbox_cmd", "Serve the embedded sandbox management API over HTTP."),
    "listen": ("listen_cmd", "Receive webhook deliveries on loopback and check each against the event models."),
    "preview": ("preview_cmd", "Show an app's chat widget live in a browser (loopback, random token)."),
    "edit": ("edit_cmd", "Open the draft in the terminal editor (also: `tenantdeck` alone)."),
    "audit": ("audit_cmd", "Check the live account against the fleet policies (exit 9 on a broken error rule)."),
    "policy": ("policy_cmd", "Fleet policies: list rules and violations, fix the obvious ones in the draft."),
    "completion": ("completion_cmd", "Print the shell completion script (bash, zsh, fish)."),
    "run-demo": ("demo_cmd", "The main job on a fresh machine: sample draft against the embedded sandbox."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        try:
            module = importlib.import_module(f"tenantdeck.cli.{entry[0]}")
        except ModuleNotFoundError as exc:
            if exc.name == f"tenantdeck.cli.{entry[0]}":
                return None  # command not built in this version
            raise
        command: click.Command = module.command
        if not command.help:
            command.help = entry[1]
        return command

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:  # type: ignore[override]
        """Run a command with tenantdeck's exit codes and error form, whoever calls (the console script, tests).

        Usage errors exit 64 (2 means "changes to push" for ``diff``), other click errors print one
        ``error: ...`` line like every other message of the tool and exit 1, Ctrl-C exits 130; never a traceback.
        """
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            rc = super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as exc:
            exc.show()
            sys.exit(exitcodes.USAGE)
        except click.ClickException as exc:
            from tenantdeck.cli.output import echo, error

            (echo if getattr(exc, "located", False) else error)(exc.format_message())
            sys.exit(exc.exit_code if exc.exit_code not in (0, 2) else exitcodes.ERROR)
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(exitcodes.INTERRUPTED)
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            sys.exit(exitcodes.INTERRUPTED)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        sys.exit(rc if isinstance(rc, int) else exitcodes.OK)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (_, help_) in sorted(COMMANDS.items()) if self.get_command(ctx, name)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]}, invoke_without_command=True)
@click.version_option(__version__, prog_name="tenantdeck")
@click.option("-v", "--verbose", count=True, help="Say more on stderr: -v retries and progress notes, -vv every "
              "request (method, path, status, time; never a header or body). Also TENANTDECK_LOG=info|debug.")
@click.option("--debug", is_flag=True, help="The same as -vv.")
@click.pass_context
def cli(ctx: click.Context, verbose: int, debug: bool) -> None:
    """Administer a multi-tenant chat account's configuration from a terminal.

    Keep a YAML draft, validate it offline, review the diff against the live service and push only that diff.
    With no command, opens ./tenantdeck.yaml in the terminal editor (`tenantdeck edit`).
    """
    if ctx.invoked_subcommand not in (None, "edit"):  # the editor's screen is stderr's terminal: no log lines
        from tenantdeck.cli.logs import configure

        configure(verbose, debug)
    if ctx.invoked_subcommand is None:
        ctx.invoke(ctx.command.get_command(ctx, "edit"))  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (see :meth:`LazyGroup.main` for exit codes and error form)."""
    cli.main(args=argv, prog_name="tenantdeck")
