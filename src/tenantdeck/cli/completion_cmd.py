"""``tenantdeck completion bash|zsh|fish``: print the shell's completion script.

Click writes the script when the program runs with ``_TENANTDECK_COMPLETE=<shell>_source``; this command prints the
same text under a name people find in ``--help``, so the README can say ``eval "$(tenantdeck completion bash)"``.
"""

from __future__ import annotations

import click
from click.shell_completion import shell_complete

from tenantdeck.console import COMPLETE_VAR

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

    # click's own entry, so the text is byte for byte what `_TENANTDECK_COMPLETE=SHELL_source` prints, whichever
    # click release is installed (8.2 and 8.5 end it differently)
    shell_complete(cli, {}, "tenantdeck", COMPLETE_VAR, f"{shell}_source")
