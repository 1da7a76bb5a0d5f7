"""``tenantdeck completion bash|zsh|fish``: print the shell's completion script.

Click writes the script when the program runs with ``_TENANTDECK_COMPLETE=<shell>_source``; this command prints the
same text under a name people find in ``--help``, so the README can say ``eval "$(tenantdeck completion bash)"``.
"""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

from tenantdeck.launch import COMPLETE_VAR

SHELLS = ("bash", "zsh", "fish")


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
def command(shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish).

    \b
    bash:  eval "$(tenantdeck completion bash)"    (in ~/.bashrc)
    zsh:   eval "$(tenantdeck completion zsh)"     (in ~/.zshrc)
    fish:  tenantdeck completion fish > ~/.config/fish/completions/tenantdeck.fish
    """
    from tenantdeck.cli import cli

    completion = get_completion_class(shell)
    assert completion is not None  # the three choices are click's own
    click.echo(completion(cli, {}, "tenantdeck", COMPLETE_VAR).source(), nl=False)  # the text click would print
