"""An app's team: the admins and moderators a draft gives, by email (facts §3.4).

The service also lists the app's owner and its developers; those are its own (an owner cannot be given a role or
removed, developers are invited in the dashboard), so a draft never names them as such: pull shows them read-only
and a push leaves them alone. Which emails are admins and which moderators is the whole of what a draft says; a
``team`` block left out means "not managed here" (the service's team is left as it is).
"""

from __future__ import annotations

import functools
import re
from typing import Annotated

from pydantic import AfterValidator, Field, StringConstraints, model_validator
from pydantic_core import PydanticCustomError

from tenantdeck.models import catalog
from tenantdeck.models.base import StrictModel
from tenantdeck.textsafe import shown

_EMAIL = re.compile(catalog.EMAIL_PATTERN)


@functools.lru_cache(maxsize=8192)
def email_refused(value: str) -> str | None:
    """Why a draft may not name ``value`` as a team member, or None: the one rule validation and pull share (pull
    keeps such an email as the service holds it instead of failing the whole account).

    The syntax is email-validator's (RFC 5321/5322 and internationalised addresses): the bare "something@x.y"
    pattern let ``[b]evil[/b]@x.example`` through, which no mail system delivers. Imported here, not at the top:
    it costs 30 ms that ``tenantdeck --help`` should not pay. ``test_environment`` allows the ``.test`` domain
    that fixtures and docs use; nothing is looked up (no network). Remembered per address: a check costs 0.1 ms
    (65 ms of a 1,000-app plan's 860 ms), and a fleet names the same admins on app after app."""
    if len(value) > catalog.EMAIL_MAX or not _EMAIL.match(value) or shown(value) != value:  # no control chars
        return "must be an email address, such as ana@example.com"
    from email_validator import EmailNotValidError, validate_email

    try:
        validate_email(value, check_deliverability=False, test_environment=True)
    except EmailNotValidError:
        return "must be an email address, such as ana@example.com"
    return None


def _email(value: str) -> str:
    if (why := email_refused(value)) is not None:
        raise PydanticCustomError("email", why, {})
    return value


Email = Annotated[str, StringConstraints(strict=True), AfterValidator(_email)]


def _unique_emails(values: list[str]) -> list[str]:
    seen: set[str] = set()
    for value in values:
        key = value.casefold()
        if key in seen:
            raise PydanticCustomError("duplicate", "{value} is listed twice", {"value": value})
        seen.add(key)
    return values


Emails = Annotated[list[Email], AfterValidator(_unique_emails)]


class Team(StrictModel):
    """Who administers and moderates the app, by email; everyone else on the service's team is left as it is
    unless the draft's base says this draft gave them the role (then leaving them out removes it)."""

    admins: Emails = Field(default_factory=list, title="Admins",
                           description="Emails of the app's admins (invited if they are not on the team yet)")
    moderators: Emails = Field(default_factory=list, title="Moderators",
                               description="Emails of the app's moderators")

    @model_validator(mode="after")
    def _one_role_each_and_the_limit(self) -> Team:
        both = sorted({a.casefold() for a in self.admins} & {m.casefold() for m in self.moderators})
        if both:
            raise PydanticCustomError("team_two_roles", "{emails}: in admins and in moderators; one role each",
                                      {"emails": ", ".join(both)})
        total = len(self.admins) + len(self.moderators)
        if total >= catalog.TEAM_PER_APP:  # the owner is always one of the 25
            raise PydanticCustomError(
                "team_too_big", "{total} admins and moderators; an app has at most {limit} collaborators, its owner "
                "included", {"total": total, "limit": catalog.TEAM_PER_APP})
        return self

    def roles(self) -> dict[str, str]:
        """email -> role, the form a plan compares (sorted, so equal teams compare equal)."""
        return dict(sorted((email, role) for role, key in catalog.TEAM_LISTS.items() for email in getattr(self, key)))
