"""An app's team: ``{email: role}`` for the admins and moderators a draft gives (owner and developers are the
service's, never in the canonical form, so never planned).

A ``team`` block left out of a draft means "not managed" (the service's team is not compared); a block it has is
the whole of who administers and moderates, three-way as every kind: an email the base knew and the draft dropped
is removed, one someone added on the service since the base is drift, kept. The API call adds and removes in one
request (``POST /apps/{appId}/collaborators``), so one step carries only the emails that change: nothing else on
the team is touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tenantdeck.models import catalog
from tenantdeck.sync.kinds.base import DraftEdit, Kind, Planner
from tenantdeck.sync.types import ABSENT, SERVICE_TEAM, Leaves, StepKind

if TYPE_CHECKING:
    from tenantdeck.models import App, Draft
    from tenantdeck.sync.types import Conflict, FieldChange, RemoteAppBundle, ResourceDiff, Step


def roles_of(collaborators: list[dict[str, Any]]) -> dict[str, str]:
    """The admins and moderators among the service's collaborators, as ``{email: role}`` in the service's order:
    of two emails equal but for case, the one listed second is the duplicate pull keeps verbatim
    (:func:`~tenantdeck.sync.remote_to_draft.team_from_canonical`); comparing a dict ignores its order."""
    return {str(c["email"]): str(c["role"]) for c in collaborators
            if isinstance(c, Mapping) and c.get("role") in catalog.TEAM_ROLES and c.get("email")}


class TeamKind(Kind):
    name = "team"
    section = "team"
    reads = ("team",)
    empty = {"team": None}
    optional = True
    steps = (StepKind("update_team", "update", "update"),)

    def from_draft(self, draft: Draft, app: App, *, secret_key: bytes, env: Mapping[str, str]) -> dict[str, Any]:
        return {"team": None if app.team is None else app.team.roles()}

    def from_remote(self, remote: RemoteAppBundle, *, secret_key: bytes) -> dict[str, Any]:
        """None when the team was not read (a push that does not change it skips the request). The owner and the
        developers go beside it, under :data:`~tenantdeck.sync.types.SERVICE_TEAM`: shown by the editor (from the
        base), never compared or planned."""
        if remote.team is None:
            return {"team": None}
        others = sorted((str(c["email"]), str(c.get("role") or "")) for c in remote.team
                        if isinstance(c, Mapping) and c.get("email") and c.get("role") not in catalog.TEAM_ROLES)
        return {"team": roles_of(remote.team), SERVICE_TEAM: [{"email": e, "role": r} for e, r in others]}

    def label(self, path: str) -> str:
        return "Team role"

    def title(self, rid: str, name: str | None) -> str:
        return "team"

    def leaves(self, raw: Any) -> Leaves:
        return dict(raw)  # emails hold dots: one leaf per email, never split into a path

    def put(self, app: dict[str, Any], rid: str, leaves: Mapping[str, Any]) -> None:
        app["team"] = dict(sorted((k, v) for k, v in leaves.items() if v is not ABSENT and v is not None))

    def draft_edits(self, index: int, app: Mapping[str, Any], conflict: Conflict) -> list[DraftEdit]:
        team = app.get("team")
        if not isinstance(team, dict):
            return []
        email = conflict.path
        out = {key: [e for e in team.get(key) or [] if e != email] for key in catalog.TEAM_LISTS.values()}
        if conflict.live in catalog.TEAM_LISTS:
            out[catalog.TEAM_LISTS[conflict.live]].append(email)
        return [("set", ("apps", index, "team"), {**team, **out})]

    def plan(self, planner: Planner, res: ResourceDiff) -> None:
        local = res.by_state("local")
        if not local:
            return
        refused = _owner_named(local, planner.app.live)
        for words in refused:
            planner.refuse(res, words)  # the service refuses the owner's email in any list (422): not sent
        if refused:
            return
        payload = {key: sorted(leaf.path for leaf in local if leaf.draft == role)
                   for role, key in catalog.TEAM_LISTS.items()}
        payload["collaboratorsToRemove"] = sorted(leaf.path for leaf in local if leaf.draft is ABSENT)
        changes = _as_role_changes(planner.changes(res), (planner.app.live or {}).get(SERVICE_TEAM))
        planner.step("update_team", res, changes=changes, payload=payload, unchanged=res.unchanged)

    def apply(self, base: dict[str, Any] | None, step: Step, sent: Any,
              result: Mapping[str, Any]) -> dict[str, Any] | None:
        assert base is not None
        team = dict(base.get("team") or {})
        for role, key in catalog.TEAM_LISTS.items():
            team.update(dict.fromkeys(sent[key], role))
        for email in sent["collaboratorsToRemove"]:
            team.pop(email, None)
        base["team"] = dict(sorted(team.items()))
        return base


def _owner_named(local: list[Any], live: Mapping[str, Any] | None) -> list[str]:
    """Why each email the draft names as an admin or a moderator is refused: the app's owner on the service (its
    ``service_team``, read as the Team tab reads the base's: :func:`~tenantdeck.draft.team_view.service_members`;
    :func:`~tenantdeck.draft.team_view.role_change`, the rule ``validate`` and the Team tab apply)."""
    from tenantdeck.draft import team_view as tv

    service = tv.service_members(live)
    changes = (tv.role_change(leaf.path, str(leaf.draft), service) for leaf in local if leaf.draft is not ABSENT)
    return [words for change in changes if change is not None for refused, words in [change] if refused]


def _as_role_changes(changes: list[FieldChange], service_team: Any) -> list[FieldChange]:
    """``changes`` with each email the service already lists in a role the draft never names (a developer made
    an admin) shown as that role's change (``"developer" -> "admin"``), not as an addition: the request changes
    the member's role, and the reviewer must see that."""
    held = {str(m.get("email", "")).casefold(): str(m.get("role") or "")
            for m in service_team or () if isinstance(m, Mapping)}
    return [replace(c, before=held[c.path.casefold()])
            if c.before is ABSENT and held.get(c.path.casefold()) else c for c in changes]


KIND = TeamKind()
