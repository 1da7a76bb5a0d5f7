"""The ``tenantdeck`` console script: ``tenantdeck`` and ``tenantdeck edit DRAFT`` open the editor straight away;
everything else goes to the click command line (:mod:`tenantdeck.cli`).

Why a way around click: opening the editor is the command people type most and the one whose start-up they watch,
and importing click and running its parser cost about 50 ms of a first paint whose target is 1.5x a bare Textual app
(0.3 s; bench/tui_startup.py). Only the plainest forms are taken here, an existing draft and no option; anything
else (options, ``--help``, a draft that does not exist yet and needs the prompt) is click's, so the behaviour and
the messages are the command line's own.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tenantdeck.console import COMPLETE_VAR, exit_after_editor, on_terminal

#: what ``tenantdeck`` alone opens (tenantdeck.cli.options.DEFAULT_DRAFT; a test checks they agree)
DEFAULT_DRAFT = "tenantdeck.yaml"


def direct_edit(args: list[str]) -> Path | None:
    """The draft to open when ``args`` is ``[]``, ``["edit"]`` or ``["edit", DRAFT]``, that draft exists and there
    is a terminal; anything else is the command line's (completion, the no-terminal message, the prompt)."""
    if os.environ.get(COMPLETE_VAR) or not on_terminal():
        return None
    if args in ([], ["edit"]):
        draft = Path(DEFAULT_DRAFT)
    elif len(args) == 2 and args[0] == "edit" and args[1] and not args[1].startswith("-"):
        draft = Path(args[1])
    else:
        return None
    return draft if draft.is_file() else None


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    args = sys.argv[1:] if argv is None else list(argv)
    draft = direct_edit(args)
    if draft is None:
        from tenantdeck.cli import main as cli_main

        cli_main(args)
        return
    from tenantdeck.tui.app import TenantdeckApp

    app = TenantdeckApp(draft)
    app.run()  # what `edit` does with no option (tenantdeck.cli.edit_cmd)
    exit_after_editor(app.return_code or 0)  # 128 + the signal after SIGHUP/SIGTERM (tui/safety.py)
