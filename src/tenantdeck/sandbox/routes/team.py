"""An app's team (list, and add/change/remove in one call) and its settings (list, map booleans, unmap).

The team follows the vendor's OpenAPI (``/apps/{appId}/collaborators``, tag "Team Management"): the GET answers
``data[{id, name, email, role, createdAt}]`` with roles ``owner``, ``admin``, ``moderator``, ``developer``; the POST
takes ``admins``, ``moderators`` and ``collaboratorsToRemove`` (lists of emails, each optional) and answers, per
email, ``{"success": true}`` under ``admins``, ``moderators``, ``developers`` and ``collaboratorsToRemove``.

Where the vendor's OpenAPI and the facts file (§3.4) differ, the OpenAPI is followed: its POST example answers the
unused groups as empty *lists* (``"moderators": []``) while its ``teamMgmtSchema`` and the facts give objects; the
sandbox always answers objects (``{}`` when empty), which both describe, and the client accepts either. The POST
example also reports ``developers`` although no body key gives that role; the sandbox reports it (always empty:
developers are invited in the dashboard, not here).

Settings follow the vendor's OpenAPI (``/apps/{appId}/settings``, tag "Settings"; facts §3.5). The GET answers
``data{key: value}``, where not every value is a boolean (``core.notifications.push.advanced.included`` is a
list). The POST (map-settings) takes ``{"settings": {key: bool}}`` and answers, per key, ``{"success": true,
"message": "Added setting(s) successfully."}`` exactly as the vendor's example. Decisions where the vendor is
silent: a key the app does not report yet is **accepted and stored** (the schema's ``additionalProperties`` allows
any key; the GET then reports it), within a bound per app; a key whose value is not a boolean is **refused**
(map-settings sets booleans only; the value is the service's). The DELETE (unmap-settings) declares no body and
does not say what it resets: the sandbox resets the app to a fresh app's settings, and tenantdeck never calls it.
The vendor's DELETE example answers ``"message": "Added setting(s) successfully."``, evidently copied from the
POST; the sandbox says "Removed ..." (the client reads only ``success``).

A request is all or nothing: any refusal (see :meth:`~tenantdeck.sandbox.store.Store.update_team` and
:func:`~tenantdeck.sandbox.validation.parse_team_update`) leaves the team as it was, so ``success`` is never false
in a sandbox answer. ``ERR_SELF_ACTION_DENIED`` (facts §5) is not produced: the key and secret are the account's,
and the only "self" an account has on an app is its owner, refused as ``ERR_ALREADY_AN_OWNER``.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tenantdeck.sandbox import validation
from tenantdeck.sandbox.bodies import json_body
from tenantdeck.sandbox.deps import ERROR_RESPONSES, AppIdParam, StoreDep, json_request_body
from tenantdeck.sandbox.envelopes import ok

router = APIRouter(responses=ERROR_RESPONSES)

_EMAILS = {"type": "array", "items": {"type": "string", "format": "email"}}
TEAM_BODY = json_request_body(
    {
        "type": "object",
        "properties": {
            "admins": {**_EMAILS, "description": "Emails to make admins (added to the team if new)"},
            "moderators": {**_EMAILS, "description": "Emails to make moderators (added to the team if new)"},
            "collaboratorsToRemove": {**_EMAILS, "description": "Emails to remove from the team"},
        },
        "additionalProperties": False,
    },
    "Emails per role to give, and emails to remove; every key is optional, an email goes in one list only",
)


@router.get(
    "/apps/{appId}/collaborators",
    operation_id="list-collaborators",
    summary="List collaborators",
    description="Answers `data[{id, name, email, role, createdAt}]`; role is owner, admin, moderator or developer.",
    tags=["Team management"],
)
async def list_collaborators(appId: AppIdParam, db: StoreDep) -> JSONResponse:
    return ok(db.list_collaborators(appId))


@router.post(
    "/apps/{appId}/collaborators",
    operation_id="add-collaborator",
    summary="Add, change and remove collaborators",
    description=(
        "Body `{admins: [emails], moderators: [emails], collaboratorsToRemove: [emails]}`: a new email is added "
        "with that role, a collaborator's role changes, removed emails leave the team. Answers "
        "`data{admins, moderators, developers, collaboratorsToRemove}`, each `{email: {success}}`. All or nothing: "
        "the owner's email anywhere is 422 ERR_ALREADY_AN_OWNER, removing a non-collaborator 404 "
        f"ERR_NOT_A_COLLABORATOR, more than {validation.COLLABORATORS_PER_APP} collaborators (owner included) 422 "
        "ERR_COLLABORATOR_LIMIT_REACHED, a malformed email or one in two lists 422 ERR_BAD_REQUEST."
    ),
    tags=["Team management"],
    openapi_extra=TEAM_BODY,
)
async def update_team(request: Request, appId: AppIdParam, db: StoreDep) -> JSONResponse:
    change = validation.parse_team_update(await json_body(request))
    db.update_team(
        appId, change.roles(), change.remove, limit=validation.COLLABORATORS_PER_APP, key=validation.email_key
    )
    done = {"success": True}
    return ok(
        {
            "admins": {email: dict(done) for email in change.admins},
            "moderators": {email: dict(done) for email in change.moderators},
            "developers": {},
            "collaboratorsToRemove": {email: dict(done) for email in change.remove},
        }
    )


@router.get(
    "/apps/{appId}/settings",
    operation_id="list-settings",
    summary="List app settings",
    description="Answers `data{key: value}`; values are not all booleans (a list value is never mappable).",
    tags=["Settings"],
)
async def list_settings(appId: AppIdParam, db: StoreDep) -> JSONResponse:
    return ok(db.app_settings(appId))


SETTINGS_BODY = json_request_body(
    {
        "type": "object",
        "properties": {"settings": {"type": "object", "additionalProperties": {"type": "boolean"}}},
        "required": ["settings"],
        "additionalProperties": False,
    },
    "Boolean settings to set, by key",
)


@router.post(
    "/apps/{appId}/settings",
    operation_id="map-settings",
    summary="Map app settings",
    description=(
        "Body `{settings: {key: true|false}}`: each key is set (a new key is added). Answers "
        "`data{key: {success, message}}` as the vendor's example does. All or nothing, 422 ERR_BAD_REQUEST: a "
        "non-boolean value, an empty key or one over 200 characters or with control characters, a key whose value "
        f"is not a boolean (a list the service reports), more than {validation.SETTINGS_PER_APP} settings on the app."
    ),
    tags=["Settings"],
    openapi_extra=SETTINGS_BODY,
)
async def map_settings(request: Request, appId: AppIdParam, db: StoreDep) -> JSONResponse:
    settings = validation.parse_settings_update(await json_body(request))
    db.map_settings(appId, settings, limit=validation.SETTINGS_PER_APP)
    return ok({key: {"success": True, "message": "Added setting(s) successfully."} for key in settings})


@router.delete(
    "/apps/{appId}/settings",
    operation_id="unmap-settings",
    summary="Unmap app settings",
    description=(
        "Resets the app's settings to a fresh app's. The real service's unmap declares no body and does not say "
        "which keys it resets (facts §3.5); tenantdeck never calls it. Answers `data{success, message}`."
    ),
    tags=["Settings"],
)
async def unmap_settings(appId: AppIdParam, db: StoreDep) -> JSONResponse:
    db.unmap_settings(appId)
    return ok({"success": True, "message": "Removed setting(s) successfully."})
