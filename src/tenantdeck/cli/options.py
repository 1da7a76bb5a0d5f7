"""Options several commands share, declared once so that they are spelled, ranged and documented alike.

* :func:`draft_input`: every command that reads or writes a draft takes it the same way, as the positional
  ``[DRAFT]`` or as ``--draft DRAFT`` (``tenantdeck validate d.yaml`` and ``tenantdeck pull --draft d.yaml`` both
  work, and so do the other spellings). Given both ways with different files, it is a usage error (exit 64) rather
  than a silent choice. ``push`` is the one exception: its positional argument is a saved PLANFILE, so it takes the
  draft as ``--draft`` only.
* :data:`CONCURRENCY`: one range for ``--concurrency`` everywhere.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_DRAFT = "tenantdeck.yaml"

#: ``--concurrency N``: the same range for pull, diff, plan and push
CONCURRENCY = click.IntRange(min=1, max=64)
DEFAULT_CONCURRENCY = 16

_DRAFT_PATH = click.Path(dir_okay=False, path_type=Path)


def _same_file(a: Path, b: Path) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)


def resolve_draft(positional: Path | None, option: Path | None, default: str = DEFAULT_DRAFT) -> Path:
    """The draft named by ``[DRAFT]`` or ``--draft``; both naming different files is a usage error."""
    if positional is not None and option is not None and not _same_file(positional, option):
        raise click.UsageError(
            f"the draft is given twice, as {positional} and as --draft {option}; give it once (either form works)"
        )
    chosen = positional if positional is not None else option
    return chosen if chosen is not None else Path(default)


def draft_input(help: str = "The draft file.", *, default: str = DEFAULT_DRAFT) -> Callable[[F], F]:
    """Adds the positional ``[DRAFT]`` and ``--draft DRAFT``; the command receives ``draft_path: Path``.

    ``help`` describes the file for this command (what it reads or writes); the option's help says that the
    positional form works too and gives the default.
    """

    def decorate(func: F) -> F:
        @click.argument("draft_arg", metavar="[DRAFT]", required=False, type=_DRAFT_PATH)
        @click.option(
            "--draft", "draft_opt", metavar="DRAFT", type=_DRAFT_PATH, default=None,
            help=f"{help} May also be given as the positional DRAFT.  [default: {default}]",
        )
        @functools.wraps(func)
        def wrapper(*args: Any, draft_arg: Path | None, draft_opt: Path | None, **kwargs: Any) -> Any:
            kwargs["draft_path"] = resolve_draft(draft_arg, draft_opt, default)
            return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def not_a_draft(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """Callback of ``push [PLANFILE]``: a YAML file there is a draft given the way the other commands take it,
    which push cannot (its positional is a saved plan); say how instead of "cannot read plan: Expecting value"."""
    if value is not None and value.suffix.lower() in (".yaml", ".yml"):
        raise click.UsageError(
            f"{value} looks like a draft; push takes a saved plan (`tenantdeck plan -o FILE`) as its argument and "
            f"the draft as --draft: tenantdeck push --draft {value}",
            ctx,
        )
    return value


#: ``--lock-timeout SECONDS``: how long a command that writes the draft's workspace waits for another one's lock
lock_timeout_option = click.option(
    "--lock-timeout", "lock_timeout", type=click.FloatRange(min=0), default=None, metavar="SECONDS",
    help="Wait at most this long for another tenantdeck process (a push, a pull, an editor saving) working on the "
    "same draft, then stop with exit code 5 naming it.  [default: $TENANTDECK_LOCK_TIMEOUT, else 10]",
)


#: ``--strict``: validate, diff, plan and push treat a literal secret in the draft as an error (exit 1)
strict_option = click.option(
    "--strict", is_flag=True,
    help="Treat a secret written as a value in the draft (instead of a ${VAR} reference) as an error: exit 1, "
    "nothing read from or sent to the service. Without it, it is a warning.",
)
