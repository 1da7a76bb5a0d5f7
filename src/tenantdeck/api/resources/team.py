"""An app's team (collaborators): list, and give roles, invite and remove in one call."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tenantdeck.api.envelopes import Envelope, kind_of
from tenantdeck.api.errors import ApiError, ConflictError, Operation
from tenantdeck.api.resources.common import seg, success
from tenantdeck.api.transport import UNCERTAIN_HINT, Transport

_TEAM_UNCERTAIN_HINT = (
    "the team change may have been applied in part; run `tenantdeck pull` to see the service's team before retrying"
)


class TeamApi(Transport):
    """The collaborators of an app, and the one POST that changes them."""

    @staticmethod
    def _team_path(app_id: str) -> str:
        return f"/apps/{seg(app_id)}/collaborators"

    async def list_collaborators(self, app_id: str) -> list[dict[str, Any]]:
        """``[{id, name, email, role, createdAt}]``; role is ``owner``, ``admin``, ``moderator`` or ``developer``."""
        op = Operation(f"list collaborators of app {app_id}", subject="collaborators", app_id=app_id)
        return (await self._call(op, "GET", self._team_path(app_id))).records()

    async def update_team(
        self,
        app_id: str,
        *,
        admins: Sequence[str] = (),
        moderators: Sequence[str] = (),
        remove: Sequence[str] = (),
    ) -> dict[str, dict[str, bool]]:
        """Give ``admins`` and ``moderators`` their role (inviting new emails) and remove ``remove``, in one POST.

        Returns ``{"admins": {email: ok}, "moderators": {...}, "collaboratorsToRemove": {...}}``. The service
        reports per email, so **a False is not done** and the caller must report it: an email the answer marks
        ``success: false``, or does not mention at all, is False. A group the answer gives as a list (the vendor's
        example answers ``"moderators": []``) reports nothing, so its requested emails are False too; an answer's
        ``developers`` group is not returned (no argument asks for it). Failures raise the :class:`ApiError`
        family like every call (``ERR_ALREADY_AN_OWNER``, ``ERR_NOT_A_COLLABORATOR``, validation, ...); a single
        string instead of a list is a :class:`TypeError` (it would be read as one email per character).

        The body carries only the lists that have entries: the OpenAPI requires none of the three keys, and an
        absent key cannot be read as "set this role to nobody" the way an empty list might. With nothing to do
        no request is made.

        Retries: giving a role twice is harmless, so a call without removals is resent like any idempotent one.
        A removal is not (the second attempt would find the email gone), so after a failure that may have
        landed the team is read back first: every change visible -> done; no removal visible -> sent again;
        anything in between raises :class:`ConflictError` (run ``pull`` and look).
        """
        if any(isinstance(emails, str) for emails in (admins, moderators, remove)):
            raise TypeError("update_team takes lists of emails, not a single string")
        groups = {"admins": list(admins), "moderators": list(moderators), "collaboratorsToRemove": list(remove)}
        body = {key: emails for key, emails in groups.items() if emails}
        if not body:
            return {key: {} for key in groups}
        parts = [f"{verb} {', '.join(groups[key])}" for key, verb in
                 (("admins", "admins"), ("moderators", "moderators"), ("collaboratorsToRemove", "remove"))
                 if groups[key]]  # fmt: skip
        op = Operation(f"update the team of app {app_id} ({'; '.join(parts)})", subject="collaborator",
                       app_id=app_id)  # fmt: skip

        def parse(envelope: Envelope) -> dict[str, dict[str, bool]]:
            payload = envelope.optional_obj() or {}
            out: dict[str, dict[str, bool]] = {}
            for key, wanted in groups.items():
                reported = payload.get(key)
                if reported is not None and not isinstance(reported, Mapping | list):
                    raise envelope.bad(f"{key} is {kind_of(reported)}, expected an object of emails")
                reports = reported if isinstance(reported, Mapping) else {}  # a list reports nothing
                out[key] = {email: success(reports.get(email)) for email in wanted}
            return out

        async def confirm(_: None) -> dict[str, dict[str, bool]] | None:
            if not remove:
                return None  # only role assignments: sending them again is safe
            team = {str(c.get("email", "")).casefold(): c.get("role") for c in await self.list_collaborators(app_id)}
            gone = [email for email in remove if email.casefold() not in team]
            if not gone:
                return None  # no removal landed, so the POST can be sent again
            given = all(team.get(e.casefold()) == "admin" for e in admins) and all(
                team.get(e.casefold()) == "moderator" for e in moderators
            )
            if len(gone) == len(remove) and given:
                return {key: dict.fromkeys(emails, True) for key, emails in groups.items()}
            raise ConflictError(op, message="the team shows only part of the change", hint=_TEAM_UNCERTAIN_HINT)

        try:
            return await self._create(op, self._team_path(app_id), body, parse=parse, confirm=confirm)
        except ApiError as exc:
            if exc.hint == UNCERTAIN_HINT:  # _create's words are about a create; say it about the team
                raise exc.with_hint(_TEAM_UNCERTAIN_HINT) from None
            raise
