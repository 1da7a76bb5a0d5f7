"""A key the service refuses, or a rotated one, told apart from another account before the identity check.

Why: a service's identity is its address plus a hash of the key (:meth:`tenantdeck.targets.Target.identity`), so
once a base is committed, a mistyped key and a rotated one both looked like "another account" (exit 8), and the
advice given, ``--rebind``, sets the committed base aside. When the recorded account and the one pointed at differ
only by the key, one request settles it:

* the service refuses the credentials: that is what is said (exit 1), nothing else is read or written;
* it accepts them and holds every app the base was taken from: the same account with a new key (app ids are the
  service's, never reused across accounts). The new key's identity is recorded (``meta.json`` and the lock file's
  ``target``; nothing else in it changes) and the command goes on, saying so;
* it accepts them and lacks the base's apps: another account, which the identity check refuses as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tenantdeck.sync.workspace.state import Workspace
    from tenantdeck.targets import Target


@dataclass(slots=True)
class KeyCheck:
    """What the one request found: ``refused`` (a line to print, exit 1), or ``notice`` (a rotated key recorded),
    or neither (nothing to settle: the identity check decides)."""

    refused: str | None = None
    notice: str | None = None


def key_only_differs(recorded: Any, pointing: Any) -> bool:
    """Whether two identities are one service reached with two keys (not two sandboxes, not two addresses)."""
    if not recorded or not pointing:
        return False
    mine, theirs = str(recorded.get("account") or ""), str(pointing.get("account") or "")
    same_url = str(recorded.get("base_url") or "").rstrip("/") == str(pointing.get("base_url") or "").rstrip("/")
    return same_url and mine.startswith("key-sha256:") and theirs.startswith("key-sha256:") and mine != theirs


async def check_key(target: Target, workspace: Workspace) -> KeyCheck:
    """Settle a key that differs from the one the draft's base was taken with (see the module)."""
    from tenantdeck.api.errors import AuthError
    from tenantdeck.sync.workspace.binding import identity_of, recorded

    mine, pointing = recorded(workspace), identity_of(target)
    if not key_only_differs(mine, pointing):
        return KeyCheck()
    try:
        async with target.client() as client:
            listing = await client.list_apps()
    except AuthError:
        return KeyCheck(refused=f"the service refused the credentials of {target.describe()}: the key or secret is "
                        "wrong, or was rotated and this job still has the old one; set the account's current key "
                        "and secret (docs/ci.md, \"Rotating the key\"). Nothing was changed")
    base_ids = set(workspace.load_base())
    if not base_ids or not base_ids <= {app.id for app in listing}:
        return KeyCheck()  # another account (or one that cannot be told): the identity check refuses it
    workspace.record_identity(pointing)
    if workspace.lock_path.exists():
        workspace.retarget_lock(pointing)
    return KeyCheck(notice=f"the key of {target.name} changed since the base was taken (a rotated key): the account "
                    f"still holds the base's {len(base_ids)} app(s), so it is the same account; the lock file now "
                    "records the new key (commit it)")
