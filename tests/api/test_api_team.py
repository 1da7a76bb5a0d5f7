"""ManagementClient.update_team / list_collaborators: against the sandbox in process (real HTTP over ASGI) for
what the service does, and against scripted answers for what only a misbehaving network or service can show
(per-email failures, a list where an object was expected, retries after an ambiguous failure)."""

from __future__ import annotations

import pytest
from api_helpers import Script, Sleeps, err, make_client, ok

from tenantdeck.api.client import ManagementClient
from tenantdeck.api.errors import AuthError, ConflictError, MalformedResponse, NotFoundError, ValidationFailed
from tenantdeck.sandbox import records

pytestmark = pytest.mark.anyio

OWNER = records.SANDBOX_OWNER["email"]
PATH = "/apps/abc/collaborators"


@pytest.fixture
def client(sandbox_client: ManagementClient) -> ManagementClient:
    return sandbox_client


async def roles(client: ManagementClient, app_id: str) -> dict[str, str]:
    return {c["email"]: c["role"] for c in await client.list_collaborators(app_id)}


# --- against the sandbox ------------------------------------------------------------------------------------------


async def test_add_change_and_remove(client: ManagementClient) -> None:
    app = await client.create_app("Team app", "us")
    result = await client.update_team(app.id, admins=["ana@acme.example"], moderators=["raj@acme.example"])
    assert result == {"admins": {"ana@acme.example": True}, "moderators": {"raj@acme.example": True},
                      "collaboratorsToRemove": {}}  # fmt: skip
    assert await roles(client, app.id) == {
        OWNER: "owner", "ana@acme.example": "admin", "raj@acme.example": "moderator",
    }  # fmt: skip

    result = await client.update_team(app.id, moderators=["ana@acme.example"], remove=["raj@acme.example"])
    assert result == {"admins": {}, "moderators": {"ana@acme.example": True},
                      "collaboratorsToRemove": {"raj@acme.example": True}}  # fmt: skip
    assert await roles(client, app.id) == {OWNER: "owner", "ana@acme.example": "moderator"}
    for member in await client.list_collaborators(app.id):
        assert set(member) == {"id", "name", "email", "role", "createdAt"}


async def test_refusals_are_typed_errors_and_change_nothing(client: ManagementClient) -> None:
    app = await client.create_app("Team app", "us")
    await client.update_team(app.id, admins=["ana@acme.example"])
    before = await roles(client, app.id)

    with pytest.raises(ValidationFailed) as owner:
        await client.update_team(app.id, admins=["new@acme.example"], remove=[OWNER])
    assert owner.value.code == "ERR_ALREADY_AN_OWNER" and owner.value.status == 422

    with pytest.raises(NotFoundError) as ghost:
        await client.update_team(app.id, admins=["new@acme.example"], remove=["ghost@acme.example"])
    assert ghost.value.code == "ERR_NOT_A_COLLABORATOR"
    assert "collaborator may have been deleted" in str(ghost.value)

    with pytest.raises(ValidationFailed) as bad:
        await client.update_team(app.id, admins=["not-an-email"])
    assert bad.value.code == "ERR_BAD_REQUEST" and "admins[0]" in str(bad.value)

    with pytest.raises(ValidationFailed) as both:
        await client.update_team(app.id, admins=["x@acme.example"], moderators=["x@acme.example"])
    assert "moderators[0]" in str(both.value)

    with pytest.raises(ValidationFailed) as full:
        await client.update_team(app.id, admins=[f"u{i}@acme.example" for i in range(25)])
    assert full.value.code == "ERR_COLLABORATOR_LIMIT_REACHED"

    with pytest.raises(NotFoundError) as gone:
        await client.update_team("nope", admins=["x@acme.example"])
    assert gone.value.code == "ERR_APP_NOT_FOUND"

    assert await roles(client, app.id) == before


# --- scripted answers -------------------------------------------------------------------------------------------


async def test_nothing_to_do_sends_nothing() -> None:
    script = Script({})
    async with make_client(script) as client:
        assert await client.update_team("abc") == {"admins": {}, "moderators": {}, "collaboratorsToRemove": {}}
    assert script.requests == []


async def test_only_lists_with_entries_are_sent() -> None:
    script = Script({f"POST {PATH}": [ok({"admins": {"a@x.example": {"success": True}}})]})
    async with make_client(script) as client:
        await client.update_team("abc", admins=["a@x.example"])
    [request] = script.requests
    assert Script.body(request) == {"admins": ["a@x.example"]}


async def test_a_string_is_not_a_list_of_emails() -> None:
    async with make_client(Script({})) as client:
        with pytest.raises(TypeError):
            await client.update_team("abc", admins="a@x.example")


async def test_a_failed_or_unreported_email_is_false_not_done() -> None:
    answer = ok({
        "admins": {"a@x.example": {"success": True}, "b@x.example": {"success": False, "message": "invite failed"}},
        "moderators": [],  # the vendor example's list: reports nothing
        "developers": {"d@x.example": {"success": True}},
        "collaboratorsToRemove": {},
    })  # fmt: skip
    script = Script({f"POST {PATH}": [answer]})
    async with make_client(script) as client:
        result = await client.update_team("abc", admins=["a@x.example", "b@x.example"], moderators=["m@x.example"],
                                          remove=["r@x.example"])  # fmt: skip
    assert result == {
        "admins": {"a@x.example": True, "b@x.example": False},
        "moderators": {"m@x.example": False},
        "collaboratorsToRemove": {"r@x.example": False},
    }


async def test_a_group_that_is_neither_object_nor_list_is_malformed() -> None:
    script = Script({f"POST {PATH}": [ok({"admins": "yes"})]})
    async with make_client(script) as client:
        with pytest.raises(MalformedResponse, match="admins is"):
            await client.update_team("abc", admins=["a@x.example"])


async def test_service_error_codes_come_through() -> None:
    script = Script({f"POST {PATH}": [err(403, "ERR_SELF_ACTION_DENIED", "You cannot change yourself.")]})
    async with make_client(script) as client:
        with pytest.raises(AuthError) as info:
            await client.update_team("abc", remove=["me@x.example"])
    assert info.value.code == "ERR_SELF_ACTION_DENIED" and "You cannot change yourself" in str(info.value)


async def test_role_changes_are_resent_after_a_server_error() -> None:
    done = ok({"admins": {"a@x.example": {"success": True}}})
    script = Script({f"POST {PATH}": [err(503, "ERR_SERVICE_UNAVAILABLE", "busy"), done]})
    sleeps = Sleeps()
    async with make_client(script, sleeps) as client:
        assert await client.update_team("abc", admins=["a@x.example"]) == {
            "admins": {"a@x.example": True}, "moderators": {}, "collaboratorsToRemove": {},
        }  # fmt: skip
    assert len(script.calls(f"POST {PATH}")) == 2 and len(sleeps.delays) == 1
    assert script.calls(f"GET {PATH}") == []  # nothing to look at: assigning a role twice is harmless


async def test_a_removal_that_landed_is_not_resent() -> None:
    team = [{"id": "1", "name": "O", "email": "o@x.example", "role": "owner", "createdAt": 1},
            {"id": "2", "name": "A", "email": "a@x.example", "role": "admin", "createdAt": 1}]  # fmt: skip
    script = Script({f"POST {PATH}": [err(502, "ERR_BAD_GATEWAY", "gateway")], f"GET {PATH}": [ok(team)]})
    async with make_client(script) as client:
        result = await client.update_team("abc", admins=["A@x.example"], remove=["gone@x.example"])
    assert result == {"admins": {"A@x.example": True}, "moderators": {},
                      "collaboratorsToRemove": {"gone@x.example": True}}  # fmt: skip
    assert len(script.calls(f"POST {PATH}")) == 1


async def test_a_removal_that_did_not_land_is_resent() -> None:
    team = [{"id": "9", "name": "R", "email": "r@x.example", "role": "moderator", "createdAt": 1}]
    done = ok({"collaboratorsToRemove": {"r@x.example": {"success": True}}})
    script = Script({f"POST {PATH}": [err(500, "ERR_INTERNAL", "oops"), done], f"GET {PATH}": [ok(team)]})
    async with make_client(script) as client:
        result = await client.update_team("abc", remove=["r@x.example"])
    assert result["collaboratorsToRemove"] == {"r@x.example": True}
    assert len(script.calls(f"POST {PATH}")) == 2


async def test_a_change_seen_in_part_is_a_conflict() -> None:
    team = [{"id": "9", "name": "R", "email": "r@x.example", "role": "moderator", "createdAt": 1}]
    script = Script({f"POST {PATH}": [err(503, "ERR_SERVICE_UNAVAILABLE", "busy")], f"GET {PATH}": [ok(team)]})
    async with make_client(script) as client:
        with pytest.raises(ConflictError, match="only part of the change"):
            await client.update_team("abc", remove=["r@x.example", "s@x.example"])
    assert len(script.calls(f"POST {PATH}")) == 1
