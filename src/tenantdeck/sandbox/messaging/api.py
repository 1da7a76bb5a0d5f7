"""The sandbox's chat API: a FastAPI app mounted at ``/chat/{appId}/v3`` beside the management API.

Shaped after the vendor's chat REST API (``chat-apis.json`` in ``cometchat/docs``): the same paths below the
``/v3`` base (whose real host is ``{appId}.api-{region}.cometchat.io``, hence the app id in the sandbox's path),
the per-app ``apikey`` header, ``onBehalfOf`` for acting as a user, ``{"data": ...}`` answers and the chat API's
error shape ``{"error": {"code", "message", "devMessage", "source": "chat-api", "details"}}``. What is simplified
or added is listed in ``docs/event-lab.md``.
"""

from __future__ import annotations

import functools
import re
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from tenantdeck import __version__
from tenantdeck.models.messages import (
    GroupCreate,
    GroupMembersBody,
    GroupUpdate,
    MessageBody,
    MessageUpdate,
    ScopeChange,
    UserCreate,
    interactive_problems,
)
from tenantdeck.problems import format_path
from tenantdeck.sandbox.bodies import json_body
from tenantdeck.sandbox.errors import ApiError
from tenantdeck.sandbox.messaging.delivery import DeliveryWorker
from tenantdeck.sandbox.messaging.service import ChatService
from tenantdeck.sandbox.pagination import Paged100
from tenantdeck.sandbox.shared_routes import include_shared

PREFIX = "/chat/{appId}/v3"

M = TypeVar("M", bound=BaseModel)


def chat_error(
    status: int,
    code: str,
    message: str,
    details: dict[str, list[str]] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    inner: dict[str, Any] = {"code": code, "message": message, "devMessage": message, "source": "chat-api"}
    if details:
        inner["details"] = details
    return JSONResponse({"error": inner}, status_code=status, headers=headers)


class ApiKeyMiddleware:
    """Every chat request needs the app's ``apikey`` header (compared in constant time)."""

    def __init__(self, app: ASGIApp, *, service: ChatService) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].endswith("/openapi.json"):
            await self.app(scope, receive, send)
            return
        app_id = str(scope.get("path_params", {}).get("appId", ""))
        key = ""
        for name, value in scope.get("headers", []):
            if name == b"apikey":
                key = value.decode("latin-1")
        if not key:
            response = chat_error(401, "AUTH_ERR_EMPTY_APIKEY", "The apikey header is required.")
        elif not self.service.app_for_key(app_id, key):
            response = chat_error(401, "AUTH_ERR_APIKEY_NOT_FOUND", "The apikey is not valid for this app.")
        else:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)


_CHAT_PATH = re.compile(r"^/chat/([^/]+)/v3(/.*)?$")


class ChatAreaMiddleware:
    """Hands ``/chat/{appId}/v3/...`` requests to the chat app, everything else to the management app.

    A dispatcher rather than ``app.mount``: a mounted app becomes one of the management app's routes, and the
    management API's own behaviour (and its /openapi.json-driven tests) should not change because a second area
    sits beside it.
    """

    def __init__(self, app: ASGIApp, *, chat_app: ASGIApp) -> None:
        self.app = app
        self.chat_app = chat_app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = _CHAT_PATH.match(scope["path"]) if scope["type"] == "http" else None
        if match is None:
            await self.app(scope, receive, send)
            return
        prefix = scope["path"][: match.start(2)] if match.group(2) else scope["path"]
        child = dict(scope)
        child["path"] = match.group(2) or "/"
        child["raw_path"] = child["path"].encode("utf-8")
        child["root_path"] = scope.get("root_path", "") + prefix
        child["path_params"] = {**scope.get("path_params", {}), "appId": match.group(1)}
        await self.chat_app(child, receive, send)


def _validate(model: type[M], data: Any) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        details: dict[str, list[str]] = {}
        for err in exc.errors(include_url=False):
            details.setdefault(format_path(tuple(err["loc"])) or "body", []).append(str(err["msg"]))
        raise ApiError(400, "ERR_BAD_REQUEST", "The request body is not valid.", details=details) from None


async def _body(request: Request, model: type[M], *, optional: bool = False) -> M:
    if optional and not (await request.body()).strip():
        return model.model_validate({})
    return _validate(model, await json_body(request))


def _service(request: Request) -> ChatService:
    service: ChatService = request.app.state.service
    return service


def _app_id(request: Request) -> str:
    return str(request.scope["path_params"]["appId"])


def _fire(request: Request, events: list[tuple[str, dict[str, Any]]]) -> None:
    worker: DeliveryWorker = request.app.state.worker
    worker.fire(_app_id(request), events)


OnBehalfOf = Annotated[str | None, Header(alias="onBehalfOf", description="UID of the user to act as")]


def _acting(on_behalf_of: str | None) -> str:
    if not on_behalf_of:
        raise ApiError(400, "ERR_ON_BEHALF_OF_REQUIRED", "This call needs the onBehalfOf header (a uid).")
    return on_behalf_of


PerPage = Annotated[int, Query(ge=1, le=1000, description="Messages per page (default 100)")]
Affix = Annotated[str, Query(pattern="^(prepend|append)$", description="prepend: older than id; append: newer")]
Cursor = Annotated[int | None, Query(ge=1, alias="id", description="Cursor: a message id")]


class DeleteBody(BaseModel):
    permanent: bool = False


def ok(data: Any, meta: dict[str, Any] | None = None) -> JSONResponse:
    return JSONResponse({"data": data} if meta is None else {"data": data, "meta": meta})


def create_chat_app(service: ChatService, worker: DeliveryWorker) -> FastAPI:
    """The chat API as its own FastAPI app (own error shape, own ``/openapi.json``), to be mounted at PREFIX."""
    app = FastAPI(
        title="tenantdeck sandbox: chat API",
        version=__version__,
        description="Users, groups, members, messages, reactions, receipts and unread counts of one sandbox app, "
        "with webhook deliveries. Base URL: /chat/{appId}/v3; header apikey (GET /apps/{appId}/chat-api on the "
        "management API gives it).",
        docs_url=None,
        redoc_url=None,
    )
    app.state.service = service
    app.state.worker = worker
    include_shared(app, _chat_routes())
    install_chat_errors(app)
    app.add_middleware(ApiKeyMiddleware, service=service)
    return app


@functools.cache
def _chat_routes() -> APIRouter:
    """The chat API's routes, declared once per process (FastAPI analyses a route's signature when it is added:
    27 ms of CPU for these 36 routes); :func:`~tenantdeck.sandbox.shared_routes.include_shared` then analyses them as
    included once too. The handlers hold no state: they find the sandbox's service and worker on
    ``request.app.state``."""
    router = APIRouter()

    # -- users --------------------------------------------------------------------------------------------

    @router.post("/users", tags=["Users"], summary="Create a user")
    async def create_user(request: Request) -> JSONResponse:
        return ok(_service(request).create_user(_app_id(request), await _body(request, UserCreate)))

    @router.get("/users", tags=["Users"], summary="List users")
    async def list_users(request: Request, page: Paged100) -> JSONResponse:
        items, total = _service(request).list_users(_app_id(request), page.per_page, page.offset)
        return ok(items, page.meta(request, total, len(items)))

    @router.get("/users/{uid}", tags=["Users"], summary="Get a user")
    async def get_user(request: Request, uid: str) -> JSONResponse:
        return ok(_service(request).get_user(_app_id(request), uid))

    @router.put("/users/{uid}/presence", tags=["Users"], summary="Sandbox extra: connect or disconnect a user")
    async def presence(request: Request, uid: str) -> JSONResponse:
        body = await json_body(request)
        status = body.get("status") if isinstance(body, dict) else None
        if status not in ("online", "offline"):
            raise ApiError(
                400,
                "ERR_BAD_REQUEST",
                "status must be online or offline",
                details={"status": ["must be online or offline"]},
            )
        user, events = _service(request).set_presence(_app_id(request), uid, status)
        _fire(request, events)
        return ok(user)

    async def _blocked_uids(request: Request) -> list[str]:
        body = await json_body(request)
        uids = body.get("blockedUids") if isinstance(body, dict) else None
        if not isinstance(uids, list) or not uids or not all(isinstance(u, str) and u for u in uids):
            raise ApiError(
                400,
                "ERR_BAD_REQUEST",
                "blockedUids must be a non-empty list of uids",
                details={"blockedUids": ["must be a non-empty list of uids"]},
            )
        return list(dict.fromkeys(uids))

    @router.post("/users/{uid}/blockedusers", tags=["Blocked Users"], summary="Block users")
    async def block(request: Request, uid: str) -> JSONResponse:
        result, events = _service(request).block(_app_id(request), uid, await _blocked_uids(request), unblock=False)
        _fire(request, events)
        return ok(result)

    @router.delete("/users/{uid}/blockedusers", tags=["Blocked Users"], summary="Unblock users")
    async def unblock(request: Request, uid: str) -> JSONResponse:
        result, events = _service(request).block(_app_id(request), uid, await _blocked_uids(request), unblock=True)
        _fire(request, events)
        return ok(result)

    # -- groups and members -------------------------------------------------------------------------------

    @router.post("/groups", tags=["Groups"], summary="Create a group")
    async def create_group(request: Request, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        group, events = _service(request).create_group(
            _app_id(request), await _body(request, GroupCreate), on_behalf_of
        )
        _fire(request, events)
        return ok(group)

    @router.get("/groups", tags=["Groups"], summary="List groups")
    async def list_groups(request: Request, page: Paged100) -> JSONResponse:
        items, total = _service(request).list_groups(_app_id(request), page.per_page, page.offset)
        return ok(items, page.meta(request, total, len(items)))

    @router.get("/groups/{guid}", tags=["Groups"], summary="Get a group")
    async def get_group(request: Request, guid: str) -> JSONResponse:
        return ok(_service(request).get_group(_app_id(request), guid))

    @router.put("/groups/{guid}", tags=["Groups"], summary="Update a group (a new owner transfers ownership)")
    async def update_group(request: Request, guid: str, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        body = await _body(request, GroupUpdate)
        group, events = _service(request).update_group(_app_id(request), guid, body, on_behalf_of)
        _fire(request, events)
        return ok(group)

    @router.delete("/groups/{guid}", tags=["Groups"], summary="Delete a group")
    async def delete_group(request: Request, guid: str, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        _fire(request, _service(request).delete_group(_app_id(request), guid, on_behalf_of))
        return ok({"success": True, "message": f"Group {guid} deleted successfully."})

    @router.post("/groups/{guid}/members", tags=["Group Members"], summary="Add members (at most 25 per call)")
    async def add_members(request: Request, guid: str, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        body = await _body(request, GroupMembersBody)
        result, events = _service(request).add_members(_app_id(request), guid, body, on_behalf_of)
        _fire(request, events)
        return ok(result)

    @router.get("/groups/{guid}/members", tags=["Group Members"], summary="List members")
    async def list_members(request: Request, guid: str, page: Paged100) -> JSONResponse:
        items, total = _service(request).list_members(_app_id(request), guid, page.per_page, page.offset)
        return ok(items, page.meta(request, total, len(items)))

    @router.delete("/groups/{guid}/members/{uid}", tags=["Group Members"], summary="Kick a member")
    async def kick(request: Request, guid: str, uid: str, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        _fire(request, _service(request).remove_member(_app_id(request), guid, uid, on_behalf_of, how="kick"))
        return ok({"success": True, "message": f"{uid} kicked from {guid}."})

    @router.put("/groups/{guid}/members/{uid}", tags=["Group Members"], summary="Change a member's scope")
    async def change_scope(request: Request, guid: str, uid: str, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        body = await _body(request, ScopeChange)
        _fire(request, _service(request).change_scope(_app_id(request), guid, uid, body.scope, on_behalf_of))
        return ok({"success": True, "message": f"{uid} is now {body.scope} in {guid}."})

    @router.post("/groups/{guid}/bannedusers/{uid}", tags=["Banned Users"], summary="Ban a user")
    async def ban(request: Request, guid: str, uid: str, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        _fire(request, _service(request).remove_member(_app_id(request), guid, uid, on_behalf_of, how="ban"))
        return ok({"success": True, "message": f"{uid} banned from {guid}."})

    @router.delete("/groups/{guid}/bannedusers/{uid}", tags=["Banned Users"], summary="Unban a user")
    async def unban(request: Request, guid: str, uid: str, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        _fire(request, _service(request).remove_member(_app_id(request), guid, uid, on_behalf_of, how="unban"))
        return ok({"success": True, "message": f"{uid} unbanned from {guid}."})

    @router.get("/groups/{guid}/bannedusers", tags=["Banned Users"], summary="List banned users")
    async def list_bans(request: Request, guid: str) -> JSONResponse:
        return ok(_service(request).list_bans(_app_id(request), guid))

    @router.post("/groups/{guid}/join", tags=["Group Members"], summary="Sandbox extra: join a group (onBehalfOf)")
    async def join(request: Request, guid: str, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        raw = await request.body()
        body = await json_body(request) if raw.strip() else {}
        password = body.get("password") if isinstance(body, dict) else None
        group, events = _service(request).join(
            _app_id(request), guid, _acting(on_behalf_of), password if isinstance(password, str) else None
        )
        _fire(request, events)
        return ok(group)

    @router.post("/groups/{guid}/leave", tags=["Group Members"], summary="Sandbox extra: leave a group (onBehalfOf)")
    async def leave(request: Request, guid: str, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        me = _acting(on_behalf_of)
        _fire(request, _service(request).remove_member(_app_id(request), guid, me, me, how="leave"))
        return ok({"success": True, "message": f"{me} left {guid}."})

    # -- messages -----------------------------------------------------------------------------------------

    @router.post("/messages", tags=["Messages"], summary="Send a message (onBehalfOf: the sender)")
    async def send_message(request: Request, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        sender = _acting(on_behalf_of)
        body = await _body(request, MessageBody)
        if body.category == "interactive":
            problems = interactive_problems(body.type, body.data)
            if problems:
                details: dict[str, list[str]] = {}
                for path, message in problems:
                    details.setdefault(format_path(("data", *path)), []).append(message)
                raise ApiError(400, "ERR_BAD_REQUEST", "The interactive message is not valid.", details=details)
        message, events = _service(request).send_message(_app_id(request), sender, body)
        _fire(request, events)
        return ok(message)

    def _history(
        request: Request,
        conversation: str | None,
        per_page: int,
        message_id: int | None,
        affix: str,
        hide_deleted: bool,
    ) -> JSONResponse:
        before = message_id if affix == "prepend" else None
        after = message_id if affix == "append" else None
        items = _service(request).list_messages(
            _app_id(request),
            conversation_id=conversation,
            limit=per_page,
            before=before,
            after=after,
            hide_deleted=hide_deleted,
        )
        meta: dict[str, Any] = {"current": {"limit": per_page, "count": len(items)}}
        if len(items) == per_page and items:
            edge = items[0] if affix == "prepend" or message_id is None else items[-1]
            meta["next"] = {"affix": "append" if after is not None else "prepend", "id": edge["id"]}
        return ok(items, meta)

    @router.get("/messages", tags=["Messages"], summary="List the app's messages (history, paged by id cursor)")
    async def list_messages(
        request: Request,
        perPage: PerPage = 100,
        id_: Cursor = None,
        affix: Affix = "prepend",
        hideDeleted: bool = False,
    ) -> JSONResponse:
        return _history(request, None, perPage, id_, affix, hideDeleted)

    @router.get("/users/{uid}/messages", tags=["Messages"], summary="History of a user conversation (onBehalfOf)")
    async def user_messages(
        request: Request,
        uid: str,
        on_behalf_of: OnBehalfOf = None,
        perPage: PerPage = 100,
        id_: Cursor = None,
        affix: Affix = "prepend",
        hideDeleted: bool = False,
    ) -> JSONResponse:
        conversation = _service(request).conversation_id(_app_id(request), _acting(on_behalf_of), "user", uid)
        return _history(request, conversation, perPage, id_, affix, hideDeleted)

    @router.get("/groups/{guid}/messages", tags=["Messages"], summary="History of a group conversation")
    async def group_messages(
        request: Request,
        guid: str,
        perPage: PerPage = 100,
        id_: Cursor = None,
        affix: Affix = "prepend",
        hideDeleted: bool = False,
    ) -> JSONResponse:
        _service(request).get_group(_app_id(request), guid)
        return _history(request, f"group_{guid}", perPage, id_, affix, hideDeleted)

    @router.get("/messages/{message_id}", tags=["Messages"], summary="Get a message (soft-deleted ones included)")
    async def get_message(request: Request, message_id: str) -> JSONResponse:
        return ok(_service(request).get_message(_app_id(request), message_id))

    @router.put("/messages/{message_id}", tags=["Messages"], summary="Edit a message (onBehalfOf: the sender)")
    async def edit_message(request: Request, message_id: str, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        editor = _acting(on_behalf_of)
        body = await _body(request, MessageUpdate)
        action, events = _service(request).edit_message(_app_id(request), message_id, editor, body)
        _fire(request, events)
        return ok(action)

    @router.delete(
        "/messages/{message_id}", tags=["Messages"], summary='Delete a message; {"permanent": true} removes it'
    )
    async def delete_message(request: Request, message_id: str, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        body = await _body(request, DeleteBody, optional=True)
        action, events = _service(request).delete_message(
            _app_id(request), message_id, on_behalf_of, permanent=body.permanent
        )
        _fire(request, events)
        return ok(action)

    @router.post("/messages/{message_id}/reactions/{reaction}", tags=["Reactions"], summary="Add a reaction")
    async def add_reaction(
        request: Request, message_id: str, reaction: str, on_behalf_of: OnBehalfOf = None
    ) -> JSONResponse:
        data, events = _service(request).react(
            _app_id(request), message_id, _acting(on_behalf_of), reaction, remove=False
        )
        _fire(request, events)
        return ok(data)

    @router.delete("/messages/{message_id}/reactions/{reaction}", tags=["Reactions"], summary="Remove a reaction")
    async def remove_reaction(
        request: Request, message_id: str, reaction: str, on_behalf_of: OnBehalfOf = None
    ) -> JSONResponse:
        data, events = _service(request).react(
            _app_id(request), message_id, _acting(on_behalf_of), reaction, remove=True
        )
        _fire(request, events)
        return ok(data)

    @router.get("/messages/{message_id}/reactions", tags=["Reactions"], summary="List a message's reactions")
    async def list_reactions(request: Request, message_id: str) -> JSONResponse:
        return ok(_service(request).list_reactions(_app_id(request), message_id))

    # -- conversations ------------------------------------------------------------------------------------

    for kind, param in (("users", "uid"), ("groups", "guid")):
        with_type = "user" if kind == "users" else "group"
        _conversation_routes(router, kind, param, with_type)
    return router


def _conversation_routes(router: APIRouter, kind: str, param: str, with_type: str) -> None:
    path = f"/{kind}/{{{param}}}/conversation"
    tag = "Conversations"

    async def get_conversation(request: Request, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        target = request.path_params[param]
        return ok(_service(request).conversation(_app_id(request), _acting(on_behalf_of), with_type, target))

    router.add_api_route(
        path,
        get_conversation,
        methods=["GET"],
        tags=[tag],
        summary=f"A {with_type} conversation with its unread count (onBehalfOf)",
    )

    for action in ("delivered", "read"):
        router.add_api_route(
            f"{path}/{action}",
            _mark_route(param, with_type, action),
            methods=["POST"],
            tags=[tag],
            summary=f"Mark a {with_type} conversation as {action} up to messageId (onBehalfOf)",
        )


def _mark_route(param: str, with_type: str, action: str) -> Any:
    async def mark(request: Request, on_behalf_of: OnBehalfOf = None) -> JSONResponse:
        body = await json_body(request)
        message_id = body.get("messageId") if isinstance(body, dict) else None
        if not isinstance(message_id, (str, int)) or isinstance(message_id, bool) or str(message_id) == "":
            raise ApiError(
                400, "ERR_BAD_REQUEST", "messageId is required", details={"messageId": ["is required (a message id)"]}
            )
        target = request.path_params[param]
        result, events = _service(request).mark(
            _app_id(request), _acting(on_behalf_of), with_type, target, str(message_id), action
        )
        _fire(request, events)
        return ok(result)

    return mark


def install_chat_errors(app: FastAPI) -> None:
    """Every failure in the chat API's error shape (400 validation, 401, 403, 404, 409)."""

    async def api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        status = 400 if exc.status == 422 else exc.status
        return chat_error(status, exc.code, exc.message, exc.details, exc.headers)

    async def request_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        details: dict[str, list[str]] = {}
        for err in exc.errors():
            details.setdefault(format_path(tuple(err.get("loc", ()))) or "request", []).append(str(err.get("msg")))
        return chat_error(400, "ERR_BAD_REQUEST", "The request is not valid.", details)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = {404: "ERR_NOT_FOUND", 405: "ERR_METHOD_NOT_ALLOWED"}.get(exc.status_code, f"ERR_HTTP_{exc.status_code}")
        return chat_error(exc.status_code, code, f"{request.method} {request.url.path}: {exc.detail}")

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, request_validation)
    app.add_exception_handler(StarletteHTTPException, http_error)
