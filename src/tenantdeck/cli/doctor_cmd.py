"""``tenantdeck doctor``: can we reach the service, do the credentials work, is the connection sound?

One line per check, in the order a user would debug by hand: target resolved -> reachable -> credentials
accepted -> TLS -> clock skew. ``ok`` and ``warn`` pass; any ``FAIL`` makes the exit code 1. Checks that cannot
run because an earlier one failed say ``skip``. Then each config file it lists below is read as the commands and
the editor read it (:func:`config_checks`): a broken profiles.yaml fails (every command naming a profile fails on
it), a bad value in settings.yaml, keymap.yaml or a theme file warns (the editor leaves it out). Keymap and theme
files are judged by the editor's own rules (:mod:`tenantdeck.tui.appearance`, imported here only, for they need
Textual), so doctor warns of all the editor's start-up notices say. Then every path
the tool reads or writes (config, data, cache), so "where does it keep X" has one answer; ``--format json``
prints the same as one document. Nothing here prints a traceback or a secret: errors are the client's one-line
messages (already redacted), and anything unexpected is redacted again before printing.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tenantdeck import exitcodes
from tenantdeck.cli.machine import document, emit, format_option
from tenantdeck.cli.target_options import target_options

if TYPE_CHECKING:
    from types import ModuleType

    from tenantdeck.api.models import Ping
    from tenantdeck.targets import Target

DOCTOR_TIMEOUT = 10.0  #: seconds; doctor should answer quickly even when the service does not
MAX_SKEW = 60.0  #: seconds of clock difference before we warn (signed URLs and audit times drift)


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: str  # "ok" | "warn" | "FAIL" | "skip"
    detail: str

    @property
    def failed(self) -> bool:
        return self.status == "FAIL"

    def render(self) -> str:
        return f"{self.status:<4}  {self.name:<21} {self.detail}"


#: said on every run: admins look for moderation next to the rest of an app's configuration, and the management
#: API's moderation rules are deprecated (the vendor marks them so), so tenantdeck does not build on them
MODERATION = Check("moderation", "info", "not managed by tenantdeck: the management API's moderation rules are "
                   "deprecated; configure moderation in the dashboard or with the per-app /moderation REST API "
                   "(docs/real-service.md §7)")


def _tls_check(target: Target, answered: bool) -> Check:
    import httpx

    from tenantdeck.targets import is_loopback_host

    name = "TLS"
    if target.in_process:
        return Check(name, "ok", "in-process sandbox (no network)")
    url = httpx.URL(target.base_url)
    if url.scheme == "https":
        if answered:
            return Check(name, "ok", f"https, certificate of {url.host} verified")
        return Check(name, "skip", "https, but the service did not answer")
    if is_loopback_host(url.host):
        return Check(name, "ok", f"loopback http to {url.host} (no TLS needed)")
    return Check(name, "warn", f"plain http to {url.host} (--insecure): the key and secret travel unencrypted")


def _skew_check(ping: Ping) -> Check:
    name = "clock skew"
    if ping.server_date is None:
        return Check(name, "ok", "not reported (no Date header)")
    skew = datetime.now(UTC).timestamp() - ping.server_date.timestamp()
    direction = "ahead of" if skew > 0 else "behind"
    text = f"local clock {abs(skew):.0f} s {direction} the service"
    if abs(skew) > MAX_SKEW:
        return Check(name, "warn", text + f" (more than {MAX_SKEW:.0f} s; fix the system clock)")
    return Check(name, "ok", f"{abs(skew):.0f} s")


def run_checks(profile: str | None, base_url: str | None, insecure: bool, max_rps: float | None = None,
               draft_path: Path | None = None) -> list[Check]:
    """All doctor checks, as data (the command prints them; tests read them).

    With a draft present, the target is resolved as diff, push and audit resolve it
    (:func:`~tenantdeck.sync.workspace.binding.resolve_for_draft`: the one named, else the one the draft records),
    and the first check says which and why: a doctor of another target than the commands use misleads."""
    import os

    from tenantdeck.api.errors import ApiError, TransportError
    from tenantdeck.api.redact import Redactor
    from tenantdeck.sync.workspace.binding import recorded_choice, resolve_for_draft
    from tenantdeck.sync.workspace.state import Workspace, WorkspaceError
    from tenantdeck.targets import ENV_BASE_URL, ENV_PROFILE, ProfileError, resolve_target

    why = "named" if profile or base_url else "the default"
    if not (profile or base_url) and (os.environ.get(ENV_BASE_URL) or os.environ.get(ENV_PROFILE)):
        why = "named by the environment"
    try:
        if draft_path is not None and draft_path.is_file():
            target = resolve_for_draft(draft_path, profile=profile, base_url=base_url, insecure=insecure)
            if why == "the default":
                try:
                    recorded = recorded_choice(Workspace(draft_path)) is not None
                except (WorkspaceError, OSError):
                    recorded = False
                if recorded:
                    why = f"the one {draft_path} records"
        else:
            target = resolve_target(profile=profile, base_url=base_url, insecure=insecure)
    except ProfileError as exc:
        return [
            Check("target resolved", "FAIL", str(exc)),
            *(Check(n, "skip", "no target") for n in ("reachable", "credentials accepted", "TLS", "clock skew")),
        ]
    checks = [Check("target resolved", "ok", f"{target.describe()} ({why})")]
    redact = Redactor((target.key, target.secret))
    started = time.perf_counter()
    ping: Ping | None = None
    failure: Exception | None = None
    async def ask() -> Ping:
        async with target.client(max_retries=0, timeout=min(target.timeout or DOCTOR_TIMEOUT, DOCTOR_TIMEOUT),
                                 max_rps=max_rps) as client:
            return await client.ping()

    try:
        ping = asyncio.run(ask())
    except Exception as exc:  # every failure becomes a line; none may escape as a traceback
        failure = exc
    elapsed = time.perf_counter() - started

    if ping is not None:
        checks.append(Check("reachable", "ok", f"HTTP {ping.status} in {ping.elapsed * 1000:.0f} ms"))
        total = f"; {ping.apps_total} app(s) in the account" if ping.apps_total is not None else ""
        checks.append(Check("credentials accepted", "ok", "list apps succeeded" + total))
        checks.append(_tls_check(target, answered=True))
        checks.append(_skew_check(ping))
        return checks

    if isinstance(failure, TransportError):
        checks.append(Check("reachable", "FAIL", str(failure)))
        checks.append(Check("credentials accepted", "skip", "the service did not answer"))
        if failure.kind == "tls":
            checks.append(Check("TLS", "FAIL", failure.message or "certificate verification failed"))
        else:
            checks.append(_tls_check(target, answered=False))
        checks.append(Check("clock skew", "skip", "the service did not answer"))
        return checks

    if isinstance(failure, ApiError) and failure.status is not None:
        # The service answered, so it is reachable; the authenticated call itself failed (401, or e.g. a 404
        # because --base-url is not the management API; the one-line error says which).
        checks.append(Check("reachable", "ok", f"HTTP {failure.status} in {elapsed * 1000:.0f} ms"))
        checks.append(Check("credentials accepted", "FAIL", str(failure)))
        checks.append(_tls_check(target, answered=True))
        checks.append(Check("clock skew", "skip", "no successful answer to read the Date header from"))
        return checks

    detail = str(failure) if isinstance(failure, ApiError) else f"{type(failure).__name__}: {failure}"
    checks.append(Check("reachable", "FAIL", redact(detail)))
    checks.extend(Check(n, "skip", "the check could not run") for n in ("credentials accepted", "TLS", "clock skew"))
    return checks


def config_checks() -> list[Check]:
    """Each config file :func:`used_paths` lists, read by its own loader, so doctor says what the commands and the
    editor would say of it (a docs-only trial found ``doctor`` all ``ok`` with a profiles.yaml every command
    naming a profile refused; trial K4, with theme files and keymap entries the editor left out at start). Not
    there: ``ok`` (the defaults). Cost: Textual's theme classes always (about 0.1 s), the app's bindings (every
    screen imported, about 0.35 s) only when keymap.yaml has an entry to settle."""
    from tenantdeck.locations import config_dir
    from tenantdeck.prefs import keymap, settings, themes
    from tenantdeck.targets import ProfileError, load_profiles, profiles_path

    config = config_dir()
    checks = []
    appearance = _editor_rules(checks)
    path = profiles_path()
    if not path.exists():
        checks.append(Check("profiles file", "ok", "none (only the built-in 'local' sandbox)"))
    else:
        try:
            names = sorted(load_profiles(path).profiles)
            checks.append(Check("profiles file", "ok", f"{len(names)} profile(s): {', '.join(names) or '-'}"))
        except ProfileError as exc:
            checks.append(Check("profiles file", "FAIL", str(exc)))
    loaded = themes.load_themes(config, None)
    if appearance is not None:  # what Textual cannot use becomes a failure, as when the editor starts
        appearance.usable_themes(loaded)
    names = appearance.theme_names(loaded) if appearance is not None else set(loaded.themes)
    remembered = settings.load(config)
    said = list(remembered.problems)
    if remembered.theme is not None and remembered.theme not in names:
        failure = loaded.failure_for(remembered.theme)
        why = f"its file is left out: {failure.render()}" if failure else (
            f"no theme file is named so (theme files: {', '.join(sorted(loaded.themes))}; "
            f"yours go in {themes.user_dir(config)}), nor is it one of Textual's; the editor uses tenantdeck's "
            "default")
        said.append(f"{settings.settings_path(config)}: theme: {remembered.theme!r}: {why}")
    if said:
        checks.append(Check("settings file", "warn", "; ".join(said)))
    else:
        there = settings.settings_path(config).exists()
        checks.append(Check("settings file", "ok", "read" if there else "none (the defaults)"))
    keys = keymap.load(config)
    problems = list(keys.problems)
    if keys.bindings and appearance is not None:  # against the app's bindings, as the editor settles it at start
        from tenantdeck.tui.app import TenantdeckApp

        problems = appearance.keymap_problems(keys, TenantdeckApp)
    if problems:
        checks.append(Check("keymap file", "warn", f"{keys.path}: " + "; ".join(problems)))
    else:
        checks.append(Check("keymap file", "ok", f"{len(keys.bindings)} key(s) remapped" if keys.bindings
                            else "none (the default keys)"))
    if loaded.failures:
        checks.append(Check("theme files", "warn", "left out: " + "; ".join(f.render() for f in loaded.failures)))
    else:
        checks.append(Check("theme files", "ok", f"{len(loaded.themes)} theme(s)"))
    return checks


def _editor_rules(checks: list[Check]) -> ModuleType | None:
    """:mod:`tenantdeck.tui.appearance`, the editor's own rules of what it leaves out of the theme and keymap files
    (they need Textual, so they are imported here only); if it does not import, a warning says so and the files
    are read by their core loaders alone: doctor is run when something is wrong, and says it without a
    traceback."""
    try:
        from tenantdeck.tui import appearance
    except Exception as exc:
        checks.append(Check("editor", "warn", f"Textual does not import ({type(exc).__name__}: {exc}): "
                                              "`tenantdeck edit` cannot start; theme and keymap files are read "
                                              "without the editor's checks"))
        return None
    return appearance


@dataclass(frozen=True, slots=True)
class UsedPath:
    """A file or directory tenantdeck uses, what for, and which variable moves it."""

    what: str
    path: Path
    override: str

    def render(self) -> str:
        state = "" if self.path.exists() else "  (not there yet)"
        return f"path  {self.what:<21} {self.path}{state}"


def used_paths(draft: Path) -> list[UsedPath]:
    """Every per-user path (config, data, cache) and the workspace of ``draft``, from the constants their owners
    read, so this list cannot drift from where the files really are."""
    from tenantdeck.draft import parsecache
    from tenantdeck.locations import ENV_CACHE_DIR, ENV_CONFIG_DIR, ENV_DATA_DIR, cache_dir, config_dir, data_dir
    from tenantdeck.prefs import keymap, settings, themes
    from tenantdeck.sync.workspace.state import Workspace
    from tenantdeck.targets import SANDBOX_DB, profiles_path

    config, data, cache = config_dir(), data_dir(), cache_dir()
    workspace = Workspace(draft)
    return [
        UsedPath("config directory", config, ENV_CONFIG_DIR),
        UsedPath("profiles", profiles_path(), ENV_CONFIG_DIR),
        UsedPath("editor settings", config / settings.SETTINGS_FILE, ENV_CONFIG_DIR),
        UsedPath("keymap", config / keymap.KEYMAP_FILE, ENV_CONFIG_DIR),
        UsedPath("your themes", themes.user_dir(config), ENV_CONFIG_DIR),
        UsedPath("data directory", data, ENV_DATA_DIR),
        UsedPath("sandbox database", data / SANDBOX_DB, ENV_DATA_DIR),
        UsedPath("demo account", data / "demo", ENV_DATA_DIR),
        UsedPath("cache directory", cache, ENV_CACHE_DIR),
        UsedPath("parse cache", parsecache.directory(), ENV_CACHE_DIR),
        UsedPath("theme cache", themes.cache_path(cache), ENV_CACHE_DIR),
        UsedPath("draft", draft, "--draft"),
        UsedPath("committed base", workspace.lock_path, "--draft"),
        UsedPath("workspace", workspace.root, "--draft"),
        UsedPath("push history", workspace.history_path, "--draft"),
    ]


@click.command("doctor")
@target_options
@click.option("--draft", "draft_path", metavar="DRAFT", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("tenantdeck.yaml"), show_default=True, help="The draft whose workspace paths to list.")
@format_option()
@click.pass_context
def command(ctx: click.Context, profile: str | None, base_url: str | None, insecure: bool,
            max_rps: float | None, draft_path: Path, fmt: str) -> None:
    """Check that the service is reachable and the credentials work (exit 0 when every check passes), and list
    every path the tool uses."""
    from tenantdeck.cli.output import write

    checks = [*run_checks(profile, base_url, insecure, max_rps, draft_path), *config_checks(), MODERATION]
    paths = used_paths(draft_path)
    code = exitcodes.ERROR if any(c.failed for c in checks) else exitcodes.OK
    if fmt == "json":
        emit(document("doctor", code, ok=code == exitcodes.OK,
                      checks=[{"name": c.name, "status": c.status.lower(), "detail": c.detail} for c in checks],
                      paths=[{"what": p.what, "path": str(p.path), "exists": p.path.exists(),
                              "override": p.override} for p in paths]))
    else:
        for check in checks:
            write(check.render() + "\n")  # details quote the service's answers
        for path in paths:
            write(path.render() + "\n")
    ctx.exit(code)
