"""The ``--profile``/``--base-url``/``--insecure``/``--max-rps`` options shared by every command that talks to
the service (doctor, pull, diff, plan, push), and their turning into a :class:`~tenantdeck.targets.Target`.

Every failure here becomes one line on stderr and exit code 1 (:data:`tenantdeck.exitcodes.ERROR`): a bad
profile file, missing credentials, a refused ``http://`` URL. Usage:

.. code-block:: python

    @click.command()
    @target_options
    def command(profile, base_url, insecure, max_rps):
        target = target_from_options(profile, base_url, insecure, max_rps)

        async def run():
            async with target.client() as client:
                return await client.list_apps()

        with api_errors():
            apps = asyncio.run(run())

or, shorter, ``@pass_target`` which resolves the target and passes ``target=``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from tenantdeck import exitcodes

if TYPE_CHECKING:
    from tenantdeck.targets import Target

F = TypeVar("F", bound=Callable[..., Any])


class TargetError(click.ClickException):
    """One-line failure to resolve a target or to talk to it; exit code 1. ``located``: the message is already a
    rendered ``FILE:LINE:COL: error: ...`` problem (printed as it is, not behind another ``error:``)."""

    exit_code = exitcodes.ERROR

    def __init__(self, message: str, *, located: bool = False) -> None:
        super().__init__(message)
        self.located = located


def complete_profile(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion of a profile name: ``local`` and those of profiles.yaml (a broken file completes none). A
    promotion's DEST is never its SOURCE (promote refuses the same account)."""
    from click.shell_completion import CompletionItem

    from tenantdeck.targets import ProfileError, profile_names

    try:
        names = profile_names()
    except (ProfileError, OSError):
        return []
    taken = ctx.params.get("source") if param.name == "dest" else None
    return [CompletionItem(name) for name in names if name.startswith(incomplete) and name != taken]


def target_options(func: F) -> F:
    """Adds ``--profile``, ``--base-url``, ``--insecure`` and ``--max-rps`` (passed as keyword arguments)."""
    options = [
        click.option(
            "--profile", metavar="NAME", default=None, shell_complete=complete_profile,
            help="Profile from profiles.yaml (default: its 'default', else the built-in 'local' sandbox).",
        ),
        click.option(
            "--base-url", metavar="URL", default=None,
            help="Management API address; overrides TENANTDECK_BASE_URL and profiles. "
            "Credentials then come from TENANTDECK_KEY/TENANTDECK_SECRET.",
        ),
        click.option(
            "--insecure", is_flag=True, default=False,
            help="Allow plain http:// to a non-loopback host (the key and secret travel unencrypted).",
        ),
        click.option(
            "--max-rps", type=click.FloatRange(min=0, min_open=True), default=None, metavar="N",
            help="At most N requests per second to the service.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def target_from_options(
    profile: str | None,
    base_url: str | None,
    insecure: bool,
    max_rps: float | None = None,
    env: Mapping[str, str] | None = None,
) -> Target:
    """Resolve the target; a problem becomes :class:`TargetError` (one line, exit 1)."""
    return target_for_draft(None, profile, base_url, insecure, max_rps, env)


rebind_option = click.option(
    "--rebind", is_flag=True, default=False,
    help="Use this draft with the account you point at even though its base was taken from another one (another "
    "sandbox, service or key); without it that stops with exit 8. The old base is set aside: a pull writes the new "
    "account's, a push then needs --prefer draft where draft and service differ.",
)


def target_for_draft(
    draft_path: Path | None,
    profile: str | None,
    base_url: str | None,
    insecure: bool,
    max_rps: float | None = None,
    env: Mapping[str, str] | None = None,
) -> Target:
    """The target of a command on a draft: the one named, else the one the draft records
    (:func:`tenantdeck.sync.workspace.binding.resolve_for_draft`); no draft: the one named or the default. A problem
    becomes :class:`TargetError`."""
    from tenantdeck.sync.workspace.binding import resolve_for_draft
    from tenantdeck.targets import ProfileError, resolve_target

    try:
        if draft_path is None:
            target = resolve_target(profile=profile, base_url=base_url, insecure=insecure, env=env)
        else:
            target = resolve_for_draft(draft_path, profile=profile, base_url=base_url, insecure=insecure, env=env)
    except ProfileError as exc:
        raise TargetError(str(exc), located=exc.problem is not None) from None
    if max_rps is not None:
        target.max_rps = max_rps
    return target


def settle_key(target: Target, workspace: Any) -> None:
    """Before the identity check: a key the service refuses is said as such (exit 1), a rotated key of the same
    account is recorded and said (:mod:`tenantdeck.sync.remote.rekey`), instead of "another account" (exit 8).
    ``workspace``: the draft's (or its target's) :class:`~tenantdeck.sync.workspace.state.Workspace`."""
    import asyncio

    from tenantdeck.cli.output import note
    from tenantdeck.sync.remote.rekey import check_key
    from tenantdeck.sync.workspace.state import WorkspaceError

    try:
        with api_errors():
            found = asyncio.run(check_key(target, workspace))
    except WorkspaceError as exc:
        raise TargetError(str(exc)) from None
    if found.refused:
        raise TargetError(found.refused)
    if found.notice:
        note(found.notice)


def wrong_target_exit(exc: Exception) -> NoReturn:
    """Say that the command points at another account than the draft's, and exit 8 (nothing was changed)."""
    from tenantdeck.cli.output import error

    error(str(exc))
    raise SystemExit(exitcodes.WRONG_TARGET)


def pass_target(func: F) -> F:
    """``target_options`` + resolution: the command receives ``target: Target`` instead of the four options."""

    @target_options
    @functools.wraps(func)
    def wrapper(*args: Any, profile: str | None, base_url: str | None, insecure: bool, max_rps: float | None,
                **kwargs: Any) -> Any:
        kwargs["target"] = target_from_options(profile, base_url, insecure, max_rps)
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


@contextmanager
def api_errors() -> Iterator[None]:
    """Turn an :class:`~tenantdeck.api.errors.ApiError` into one line on stderr and exit 1, never a traceback."""
    from tenantdeck.api.errors import ApiError

    try:
        yield
    except ApiError as exc:
        raise TargetError(str(exc)) from None
