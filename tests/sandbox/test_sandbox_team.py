"""Team management over HTTP: POST /apps/{appId}/collaborators adds, changes roles and removes, all or nothing.

Every refusal is checked by reading the team back with GET: a refused request must leave it exactly as it was.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sandbox_helpers import MakeApp, assert_error, client_for

from tenantdeck.sandbox import records
from tenantdeck.sandbox.validation import COLLABORATORS_PER_APP

pytestmark = pytest.mark.anyio

OWNER = records.SANDBOX_OWNER["email"]


def path(app_id: str) -> str:
    return f"/apps/{app_id}/collaborators"


async def team(client: httpx.AsyncClient, app_id: str) -> list[dict[str, Any]]:
    r = await client.get(path(app_id))
    assert r.status_code == 200, r.text
    data: list[dict[str, Any]] = r.json()["data"]
    return data


async def roles(client: httpx.AsyncClient, app_id: str) -> dict[str, str]:
    return {c["email"]: c["role"] for c in await team(client, app_id)}


async def post(client: httpx.AsyncClient, app_id: str, **body: Any) -> httpx.Response:
    return await client.post(path(app_id), json=body)


async def test_a_new_app_has_its_owner_only_in_the_get_shape(client: httpx.AsyncClient, app_id: str) -> None:
    [owner] = await team(client, app_id)
    assert set(owner) == {"id", "name", "email", "role", "createdAt"}
    assert (owner["email"], owner["role"]) == (OWNER, "owner")
    assert isinstance(owner["createdAt"], int)


async def test_add_admins_and_moderators(client: httpx.AsyncClient, app_id: str) -> None:
    r = await post(client, app_id, admins=["ana.lopez@acme.example"], moderators=["raj@acme.example"])
    assert r.status_code == 200, r.text
    assert r.json() == {"data": {
        "admins": {"ana.lopez@acme.example": {"success": True}},
        "moderators": {"raj@acme.example": {"success": True}},
        "developers": {},
        "collaboratorsToRemove": {},
    }}  # fmt: skip
    members = {c["email"]: c for c in await team(client, app_id)}
    assert {e: c["role"] for e, c in members.items()} == {
        OWNER: "owner", "ana.lopez@acme.example": "admin", "raj@acme.example": "moderator",
    }  # fmt: skip
    ana = members["ana.lopez@acme.example"]
    assert set(ana) == {"id", "name", "email", "role", "createdAt"}
    assert ana["name"] == "Ana Lopez" and isinstance(ana["id"], str) and ana["id"]
    assert ana["id"] != members["raj@acme.example"]["id"]


async def test_change_role_keeps_identity(client: httpx.AsyncClient, app_id: str) -> None:
    await post(client, app_id, admins=["ana@acme.example"])
    [before] = [c for c in await team(client, app_id) if c["email"] == "ana@acme.example"]
    r = await post(client, app_id, moderators=["ANA@acme.example"])  # emails compare case-insensitively
    assert r.status_code == 200, r.text
    assert r.json()["data"]["moderators"] == {"ANA@acme.example": {"success": True}}
    [after] = [c for c in await team(client, app_id) if c["email"] == "ana@acme.example"]
    assert after == {**before, "role": "moderator"}
    assert len(await team(client, app_id)) == 2


async def test_remove(client: httpx.AsyncClient, app_id: str) -> None:
    await post(client, app_id, admins=["ana@acme.example", "bo@acme.example"])
    r = await post(client, app_id, collaboratorsToRemove=["ana@acme.example"])
    assert r.status_code == 200, r.text
    assert r.json()["data"]["collaboratorsToRemove"] == {"ana@acme.example": {"success": True}}
    assert await roles(client, app_id) == {OWNER: "owner", "bo@acme.example": "admin"}


async def test_add_change_and_remove_in_one_call(make_app: MakeApp) -> None:
    async with client_for(make_app(seed=True)) as client:
        apps = (await client.get("/apps")).json()["data"]
        [support] = [a["id"] for a in apps if a["name"] == "Acme Support"]
        assert await roles(client, support) == {
            OWNER: "owner", "ana@acme.example": "developer", "raj@acme.example": "moderator",
        }  # fmt: skip
        r = await post(client, support, admins=["ana@acme.example", "new@acme.example"],
                       collaboratorsToRemove=["raj@acme.example"])  # fmt: skip
        assert r.status_code == 200, r.text
        assert await roles(client, support) == {
            OWNER: "owner", "ana@acme.example": "admin", "new@acme.example": "admin",
        }  # fmt: skip


async def test_an_empty_body_changes_nothing(client: httpx.AsyncClient, app_id: str) -> None:
    r = await post(client, app_id)
    assert r.status_code == 200, r.text
    assert r.json()["data"] == {"admins": {}, "moderators": {}, "developers": {}, "collaboratorsToRemove": {}}
    assert await roles(client, app_id) == {OWNER: "owner"}


async def test_a_repeated_email_in_one_list_counts_once(client: httpx.AsyncClient, app_id: str) -> None:
    r = await post(client, app_id, admins=["ana@acme.example", "Ana@acme.example"])
    assert r.status_code == 200, r.text
    assert r.json()["data"]["admins"] == {"ana@acme.example": {"success": True}}
    assert await roles(client, app_id) == {OWNER: "owner", "ana@acme.example": "admin"}


# --- refusals: each leaves the team as it was -------------------------------------------------------------------


@pytest.fixture
async def staffed(client: httpx.AsyncClient, app_id: str) -> dict[str, str]:
    """The app with one admin and one moderator; returns the team as email -> role."""
    r = await post(client, app_id, admins=["ana@acme.example"], moderators=["raj@acme.example"])
    assert r.status_code == 200, r.text
    return await roles(client, app_id)


@pytest.mark.parametrize("key", ["admins", "moderators", "collaboratorsToRemove"])
async def test_the_owner_in_any_list_is_refused(
    client: httpx.AsyncClient, app_id: str, staffed: dict[str, str], key: str
) -> None:
    body = {key: [OWNER.upper()], "admins" if key != "admins" else "moderators": ["new@acme.example"]}
    r = await client.post(path(app_id), json=body)
    assert_error(r, 422, "ERR_ALREADY_AN_OWNER")
    assert await roles(client, app_id) == staffed


async def test_removing_a_non_collaborator_is_refused(
    client: httpx.AsyncClient, app_id: str, staffed: dict[str, str]
) -> None:
    r = await post(client, app_id, admins=["new@acme.example"],
                   collaboratorsToRemove=["raj@acme.example", "ghost@acme.example"])  # fmt: skip
    error = assert_error(r, 404, "ERR_NOT_A_COLLABORATOR")
    assert "ghost@acme.example" in error["message"] and "raj@" not in error["message"]
    assert await roles(client, app_id) == staffed


async def test_an_email_in_two_lists_is_refused(
    client: httpx.AsyncClient, app_id: str, staffed: dict[str, str]
) -> None:
    r = await post(client, app_id, admins=["new@acme.example"], moderators=["x@acme.example", "NEW@acme.example"])
    error = assert_error(r, 422, "ERR_BAD_REQUEST")
    assert set(error["details"]) == {"moderators[1]"}
    assert "admins" in error["details"]["moderators[1]"][0]
    assert await roles(client, app_id) == staffed


@pytest.mark.parametrize(
    "bad", ["not-an-email", "a@b", "two@@acme.example", "sp ace@acme.example", "", "x\x1b[2J@acme.example",
            "a\u202e@acme.example", 42, None, "x" * 250 + "@acme.example"],
)  # fmt: skip
async def test_a_malformed_email_is_refused(
    client: httpx.AsyncClient, app_id: str, staffed: dict[str, str], bad: object
) -> None:
    r = await client.post(path(app_id), json={"admins": ["new@acme.example"], "collaboratorsToRemove": [bad]})
    error = assert_error(r, 422, "ERR_BAD_REQUEST")
    assert set(error["details"]) == {"collaboratorsToRemove[0]"}
    assert "\x1b" not in r.text and "\u202e" not in r.text  # data never comes back (escaped or not)
    assert await roles(client, app_id) == staffed


@pytest.mark.parametrize(
    ("body", "field"),
    [({"admins": "ana@acme.example"}, "admins"), ({"developers": ["d@acme.example"]}, "developers"),
     ({"moderators": {"a@acme.example": True}}, "moderators")],
)  # fmt: skip
async def test_a_malformed_body_is_refused(
    client: httpx.AsyncClient, app_id: str, staffed: dict[str, str], body: dict[str, Any], field: str
) -> None:
    error = assert_error(await client.post(path(app_id), json=body), 422, "ERR_BAD_REQUEST")
    assert field in error["details"]
    assert await roles(client, app_id) == staffed


async def test_not_json_and_not_an_object(client: httpx.AsyncClient, app_id: str) -> None:
    assert_error(await client.post(path(app_id), content=b"{admins"), 400, "ERR_BAD_REQUEST")
    assert_error(await client.post(path(app_id), json=["a@acme.example"]), 422, "ERR_BAD_REQUEST")


async def test_more_than_the_limit_is_refused(client: httpx.AsyncClient, app_id: str) -> None:
    room = COLLABORATORS_PER_APP - 1  # the owner is one of them
    fill = [f"user{i}@acme.example" for i in range(room - 1)]
    r = await post(client, app_id, admins=fill[:10], moderators=fill[10:])
    assert r.status_code == 200, r.text
    full = await roles(client, app_id)
    assert len(full) == COLLABORATORS_PER_APP - 1

    r = await post(client, app_id, admins=["last@acme.example", "extra@acme.example"])
    assert_error(r, 422, "ERR_COLLABORATOR_LIMIT_REACHED")
    assert await roles(client, app_id) == full

    # a change of role does not count, and a removal in the same call makes room
    r = await post(client, app_id, moderators=[fill[0]], admins=["last@acme.example", "extra@acme.example"],
                   collaboratorsToRemove=[fill[1]])  # fmt: skip
    assert r.status_code == 200, r.text
    after = await roles(client, app_id)
    assert len(after) == COLLABORATORS_PER_APP
    assert after[fill[0]] == "moderator" and fill[1] not in after


async def test_unknown_app(client: httpx.AsyncClient) -> None:
    assert_error(await post(client, "nope", admins=["a@acme.example"]), 404, "ERR_APP_NOT_FOUND")


async def test_a_deleted_app_is_refused(client: httpx.AsyncClient, app_id: str) -> None:
    assert (await client.delete(f"/apps/{app_id}")).status_code == 200
    assert_error(await post(client, app_id, admins=["a@acme.example"]), 404, "ERR_APP_NOT_FOUND")


async def test_the_post_is_in_the_openapi_document(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/openapi.json")).json()
    operation = doc["paths"]["/apps/{appId}/collaborators"]["post"]
    assert operation["operationId"] == "add-collaborator"
    props = operation["requestBody"]["content"]["application/json"]["schema"]["properties"]
    assert set(props) == {"admins", "moderators", "collaboratorsToRemove"}
