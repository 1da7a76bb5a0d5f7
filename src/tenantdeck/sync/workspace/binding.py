"""Which account a draft's base was taken from, and the check that a command points at that account.

Why: a base snapshot only means something against the account it was read from. Compared with another account,
every app looks "deleted remotely", and a pull removes them all from the draft. Every sandbox is ``local`` at
``http://sandbox.local``, so a profile name and a URL do not tell two accounts apart; the identity does
(:meth:`tenantdeck.targets.Target.identity`: base URL plus a hash of the key for a service, the account id in the
database for the in-process sandbox).

The identity is recorded by ``pull`` (and by a push of a draft that had none yet) in ``meta.json`` and, when there
is one, in the committed lock file (:mod:`tenantdeck.sync.workspace.lockfile`), which wins. ``diff``, ``plan``,
``push``, ``pull`` and the editor call :func:`check_identity` before they read or write anything; a different
account is :class:`WrongTarget` (exit :data:`tenantdeck.exitcodes.WRONG_TARGET`) unless the user re-binds the
draft on purpose (``--rebind``).

With no target named (no ``--profile``, ``--base-url`` or ``TENANTDECK_BASE_URL``), commands use the target the
draft records (:func:`recorded_choice`): its profile, and for the sandbox its database file, so the demo's draft
reaches the demo's sandbox from a plain ``tenantdeck diff``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenantdeck.sync.workspace.state import Workspace

if TYPE_CHECKING:
    from tenantdeck.targets import Target

#: profile names that are not profiles a user can name: ``custom`` is a bare ``--base-url``
NOT_A_PROFILE = frozenset({"custom"})


class WrongTarget(Exception):
    """The command points at another account than the one the draft's base was taken from."""

    def __init__(self, draft_path: Path, recorded: Mapping[str, Any], pointing: Mapping[str, Any]) -> None:
        self.recorded = dict(recorded)
        self.pointing = dict(pointing)
        self.draft_path = draft_path
        super().__init__(self.text())

    def text(self, *, rebind: bool = True) -> str:
        """What happened and the way out; ``rebind``: the command has ``--rebind`` (promote has not: its accounts
        are named profiles, and a key the service accepts for the same apps is a rotated key, not another account)."""
        head = (f"this draft ({self.draft_path}) was pulled from {describe(self.recorded)}; you are pointing at "
                f"{describe(self.pointing)}. Nothing was changed. ")
        if not rebind:
            return head + ("Check the profile's base_url and credentials (profiles.yaml: key_env, secret_env): they "
                           "reach an account that does not hold the apps of this base")
        return head + ("Run without --profile/--base-url (and without TENANTDECK_BASE_URL) to use the draft's own "
                       "account, or add --rebind to use this draft with the account you named on purpose (its base "
                       "snapshot is then set aside: pull, or push with --prefer draft)")


def describe(identity: Mapping[str, Any]) -> str:
    """One line naming an account for a human: the sandbox's file, or the service's address and key hash."""
    account = str(identity.get("account") or "")
    profile = identity.get("profile")
    if account.startswith("sandbox:"):
        where = f"the sandbox database {identity['sandbox_db']}" if identity.get("sandbox_db") else "a sandbox"
        return f"{where} (account {account.removeprefix('sandbox:')})"
    parts = [f"profile {profile!r}"] if profile else []
    if account:
        parts.append(f"key {account.removeprefix('key-sha256:')[:8]}...")
    where = str(identity.get("base_url") or "an unknown service")
    return where + (f" ({', '.join(parts)})" if parts else "")


def identity_of(target: Any) -> dict[str, Any]:
    """What a base records about ``target`` (a :class:`tenantdeck.targets.Target`): its identity, its profile
    name, and the in-process sandbox's database file (local to this machine; never in the lock file)."""
    out: dict[str, Any] = {**target.identity(), "profile": target.name}
    if getattr(target, "sandbox_db", None) is not None:
        out["sandbox_db"] = str(target.sandbox_db)
    return out


def recorded(workspace: Workspace) -> dict[str, Any] | None:
    """The identity the draft's base was taken from: the lock file's, else ``meta.json``'s (which also knows the
    sandbox's file on this machine), else None (never pulled). A ``meta.json`` from before identities were
    recorded gives only the profile and base URL."""
    from tenantdeck.sync.workspace.lockfile import LockFileError, read_lock_target
    from tenantdeck.sync.workspace.state import WorkspaceError

    meta = workspace.read_meta() or {}
    mine = meta.get("identity") if isinstance(meta.get("identity"), dict) else None
    if mine is None and meta.get("base_url"):
        mine = {"base_url": meta.get("base_url"), "profile": meta.get("profile")}
    try:
        locked = read_lock_target(workspace)
    except LockFileError as exc:
        raise WorkspaceError(str(exc)) from None
    if locked is None:
        return dict(mine) if mine else None
    if mine and same_account(mine, locked) and mine.get("sandbox_db"):
        locked["sandbox_db"] = mine["sandbox_db"]  # where that sandbox lives on this machine
    return locked


def same_account(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two identities are one account: the same base URL and, where both know it, the same account."""
    if str(a.get("base_url") or "").rstrip("/") != str(b.get("base_url") or "").rstrip("/"):
        return False
    return not (a.get("account") and b.get("account")) or a["account"] == b["account"]


def check_identity(workspace: Workspace, pointing: Mapping[str, Any], *, rebind: bool = False) -> None:
    """Raise :class:`WrongTarget` when the draft records another account than ``pointing`` (and the user did not
    say ``rebind``). A draft never pulled records nothing, and any target is fine for it."""
    mine = recorded(workspace)
    if mine is None or rebind or same_account(mine, pointing):
        return
    raise WrongTarget(workspace.draft_path, mine, pointing)


def needs_rebind(workspace: Workspace, pointing: Mapping[str, Any]) -> bool:
    """Whether the draft records another account than ``pointing``: a ``--rebind`` then sets its base aside."""
    mine = recorded(workspace)
    return mine is not None and not same_account(mine, pointing)


@dataclass(frozen=True, slots=True)
class Choice:
    """The target a draft records, as what to resolve when the user names none."""

    profile: str | None
    sandbox_db: Path | None


def recorded_choice(workspace: Workspace) -> Choice | None:
    """The profile (and sandbox file) to use for this draft when the command names no target, or None."""
    mine = recorded(workspace)
    if not mine:
        return None
    profile = mine.get("profile")
    db = mine.get("sandbox_db")
    if str(mine.get("account") or "").startswith("sandbox:") and db and Path(db).is_file():
        return Choice("local", Path(db))
    if isinstance(profile, str) and profile and profile not in NOT_A_PROFILE:
        return Choice(profile, None)
    return None


def resolve_for_draft(
    draft_path: Path,
    profile: str | None = None,
    base_url: str | None = None,
    insecure: bool = False,
    env: Mapping[str, str] | None = None,
) -> Target:
    """:func:`tenantdeck.targets.resolve_target` for a command on the draft at ``draft_path``: when the user names
    no target (no ``profile``, ``base_url`` or ``TENANTDECK_BASE_URL``), the target the draft's base records is used
    (its profile; for the sandbox, its database file), so a draft keeps talking to the account it was pulled from
    (the demo's draft to the demo's sandbox) whatever the default profile is. The account check itself is
    :func:`check_identity`.

    It lives here, not in :mod:`tenantdeck.targets`, because it reads the workspace: the targets are below the sync
    package, which runs against them.
    """
    from tenantdeck.sync.workspace.state import WorkspaceError
    from tenantdeck.targets import ENV_BASE_URL, ENV_PROFILE, local_target, resolve_target

    env = os.environ if env is None else env
    if not (profile or base_url or env.get(ENV_BASE_URL) or env.get(ENV_PROFILE)):
        try:
            choice = recorded_choice(Workspace(draft_path))
        except (WorkspaceError, OSError):
            choice = None  # the command itself reports a broken workspace
        if choice is not None and choice.sandbox_db is not None:
            return local_target(env, db_path=choice.sandbox_db)
        if choice is not None:
            profile = choice.profile
    return resolve_target(profile=profile, base_url=base_url, insecure=insecure, env=env)
