"""A fixture server answering like the *real* management API: response bodies copied from the vendor's OpenAPI.

Source: ``management-apis.json`` in the public repository cometchat/docs at commit
c72c11fb088d443ac6a899e0abfabea14fb059cf (the newer "MA-c" of ``management-api-facts.md``): the examples of
list-apps (no ``meta``), list-extensions, list-chat-widget, list-webhooks, get-webhook, update-webhook,
list-triggers, list-collaborators and list-settings (update-chat-widget answers ``data.body.data.success`` as facts
§8 says). Only ids, names, the number of apps and, where a test says so, the widget's listing values are varied; the
shapes are the examples' own, including what they leave out: a webhook answer never carries ``useBasicAuth``,
``username``, ``password``, ``retryOnFailure`` (or even ``enabled``), and the apps list has no ``meta``.

Unlike our sandbox, this server holds state the examples never show: the example webhook ``test_webhook201`` has
Basic Auth and retries switched on (``hidden``), as an admin may have set them in the dashboard. It records every
request so tests can see exactly what a client sent. Not from the OpenAPI (which declares only 200 answers): the
404 for an app without SMS settings uses the chat API's error envelope (facts §5), as our client expects.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

#: list-apps example (MA-c), one record; ``apps()`` varies id and name.
APP_EXAMPLE: dict[str, Any] = {
    "id": "<APP_ID>",
    "name": "Test App",
    "plan": "free-2023-01",
    "trialEndsAt": "2025-05-01T12:14:55Z",
    "state": "active",
    "owner": "<OWNER_ID>",
    "region": "us",
    "version": "3",
    "metadata": {"industry": "healthcare", "technology": "android_java", "otherTechnology": ""},
    "accessKey": "<ACCESS_KEY>",
    "role": "owner",
    "createdAt": "2025-03-31T12:14:55Z",
    "updatedAt": "2025-08-01T12:15:03Z",
    "statsToken": "<STATS_TOKEN>",
    "appOwner": {
        "id": "<OWNER_ID>", "name": "<OWNER_NAME>", "email": "<OWNER_EMAIL>", "emailVerified": True,
        "pooledBilling": False, "isTestAccount": True, "createdAt": "2022-02-14T06:26:16Z",
        "updatedAt": "2025-01-27T09:10:31Z",
    },
    "appRegion": {
        "id": "us", "name": "USA", "description": "The USA region has servers located at Ohio.", "isActive": True,
        "isPrivate": False, "isInvisible": False, "createdAt": "2019-09-11T04:52:10Z",
        "updatedAt": "2019-09-11T05:02:33Z",
        "meta": {"apiHost": "api-us.cometchat.io", "apiVersion": "v2.0", "metricsHost": "metrics-us.cometchat.io",
                 "metricsUseSSL": 1, "metricsVersion": "v2", "useSSL": 1},
    },
    "planName": "Build",
}

#: list-extensions example: two of its records and its meta (trimmed to one page).
EXTENSIONS_EXAMPLE: dict[str, Any] = {
    "data": [
        {"id": "gifs-giphy", "name": "Giphy", "tagLine": "Be Animated", "description": "Be Animated",
         "author": "CometChat", "email": "help@cometchat.com", "accessToAppData": False,
         "websiteURL": "https://www.cometchat.com", "isActive": True, "isPrivate": False, "isInvisible": False,
         "isThirdParty": False, "createdAt": 1622447638, "hooks": {"data": []}, "categories": {"data": []}},
        {"id": "save-message", "name": "Save Message",
         "tagLine": "Saved messages in one-on-one and group conversations",
         "description": "Enable users to save messages from one-on-one and group conversations\\n",
         "author": "CometChat", "email": "help@cometchat.com", "accessToAppData": False,
         "websiteURL": "https://www.cometchat.com", "isActive": True, "isPrivate": False, "isInvisible": False,
         "isThirdParty": False, "createdAt": 1614671960, "hooks": {"data": []}, "categories": {"data": []}},
    ],
    "meta": {"pagination": {"total": 2, "count": 2, "per_page": 25, "current_page": 1, "total_pages": 1}},
}

#: list-chat-widget example, verbatim (the GET carries sidebar.start_a_new_conversation and group_listing).
WIDGETS_EXAMPLE: dict[str, Any] = {
    "data": {
        "statusCode": 200,
        "success": True,
        "body": {"data": [{
            "configuration": {
                "name": "Test Chat Widget",
                "style": {
                    "docked_layout_icon_background": "#03a9f4", "custom_js": "v2",
                    "docked_layout_icon_close": "https://widget-js.cometchat.io/v2/resources/chat_close.svg",
                    "custom_css": "string",
                    "docked_layout_icon_open": "https://widget-js.cometchat.io/v2/resources/chat_bubble.svg",
                    "primary_color": "#03A9F4", "foreground_color": "#000000", "background_color": "#FFFFFF",
                    "override_system_background_colors": True,
                },
                "main": {
                    "allow_message_reactions": True, "enable_collaborative_whiteboard": True,
                    "enable_collaborative_document": True, "enable_video_calling": True,
                    "enable_editing_messages": True, "enable_sending_messages": True,
                    "allow_moderator_to_delete_member_messages": True, "join_or_leave_groups": True,
                    "block_user": True, "enable_voice_calling": True, "send_emojis": True, "send_files": True,
                    "view_shared_media": True, "enable_sound_for_messages": True, "send_photos_videos": True,
                    "show_stickers": True, "enable_sound_for_calls": True, "show_call_notifications": True,
                    "view_group_members": True, "allow_delete_groups": True, "allow_kick_ban_members": True,
                    "hide_join_leave_notifications": True, "enable_message_translation": True,
                    "send_message_in_private_to_group_member": True, "create_groups": True,
                    "show_typing_indicators": True, "show_user_presence": True, "allow_add_members": True,
                    "enable_deleting_messages": True, "enable_threaded_replies": True,
                    "show_delivery_read_indicators": True, "hide_deleted_messages": True,
                    "allow_creating_polls": True, "allow_promote_demote_members": True,
                    "share_live_reactions": True, "show_emojis_in_larger_size": True,
                    "allow_mention_members": False, "enable_replying_to_messages": False,
                    "enable_share_copy_forward_messages": False, "highlight_messages_from_moderators": False,
                    "show_call_recording_option": False, "send_voice_notes": True, "send_gifs": False,
                    "share_location": False, "set_groups_in_qna_mode_by_moderators": False,
                    "send_reply_in_private_to_group_member": False,
                },
                "version": "v2",
                "sidebar": {
                    "group_listing": "public_and_password_protected_groups",
                    "start_a_new_conversation": "all_chats", "user_settings": True, "calls": True,
                    "chats": True, "user_listing": "all_users", "groups": True, "recent_chat_listing": "all_chats",
                    "sidebar_navigation_sequence": ["chats", "users", "groups", "calls", "settings"],
                    "users": True,
                },
                "appId": "564663ddb71bbb",
            },
            "widgetId": "c59766f0-5318-4c82-b6b3-fa09ee80a506",
        }]},
        "responseTime": 0.11409401893615723,
    }
}
NO_WIDGETS: dict[str, Any] = {"data": {"statusCode": 200, "success": True, "body": {"data": []},
                                       "responseTime": 0.11409401893615723}}

#: list-webhooks example record (get-webhook and update-webhook answer it doubly nested).
WEBHOOK_EXAMPLE: dict[str, Any] = {
    "id": "test_webhook201", "name": "test_webhook201", "webhookURL": "https://example.com/test",
    "createdAt": 1684141151, "updatedAt": 1684141151,
}
#: list-triggers example, verbatim.
TRIGGERS_EXAMPLE: dict[str, Any] = {
    "data": [
        {"id": "message_delivery_receipt", "description": "[Beta] The hook triggers when the client chat application "
         "confirms with Cometchat servers that a message was delivered."},
        {"id": "message_read_receipt", "description": "[Beta] The hook triggers when the client chat application "
         "confirms with Cometchat servers that a message was read."},
    ],
    "meta": {"pagination": {"total": 2, "count": 2, "per_page": 100, "current_page": 1, "total_pages": 1}},
}
#: update-chat-widget answer (``data.body.data.success``, facts §8).
WIDGET_UPDATED: dict[str, Any] = {"data": {"statusCode": 200, "success": True, "body": {"data": {"success": True}},
                                           "responseTime": 0.11409401893615723}}
#: delete-webhook example.
DELETED: dict[str, Any] = {"data": {"success": True, "message": "Deleted Webhook successfully."}}
NO_SMS: dict[str, Any] = {"error": {"code": "ERR_SETTINGS_NOT_FOUND", "message": "No settings are stored."}}

#: list-collaborators example (``GET /apps/{appId}/collaborators``), as the OpenAPI has it: two admins, a developer.
COLLABORATORS_EXAMPLE: dict[str, Any] = {
    "data": [
        {"id": "1", "name": "Admin1", "email": "admin1@cometchat.com", "role": "admin", "createdAt": 1618578628},
        {"id": "2", "name": "Admin2", "email": "admin2@cometchat.com", "role": "admin", "createdAt": 1625220090},
        {"id": "3", "name": "Developer1", "email": "developer1@cometchat.com", "role": "developer",
         "createdAt": 1625220076},
    ]
}

#: list-settings example (``GET /apps/{appId}/settings``), as the OpenAPI has it: one value is a list.
SETTINGS_EXAMPLE: dict[str, Any] = {
    "data": {
        "core.conversations.updateOnGroupActions": True, "core.conversations.updateOnReplies": True,
        "core.threads.updateOnMessageActions": False, "core.conversations.updateOnCallActivity": True,
        "core.conversations.updateOnMessageActions": True, "core.conversations.updateOnCustomMessage": True,
        "core.notifications.push.accessible": True, "core.notifications.push.enabled": True,
        "core.notifications.push.advanced.enabled": True,
        "core.notifications.push.advanced.included": ["preferences", "templates", "providers.multiple"],
    }
}

#: What the service holds for the example webhook beyond what it answers (set in the dashboard, say).
HIDDEN: dict[str, Any] = {"useBasicAuth": True, "username": "dashboarduser", "retryOnFailure": True, "enabled": True}


def apps(count: int) -> list[dict[str, Any]]:
    """``count`` apps shaped like the list-apps example; the first holds the example widget and webhook."""
    out = []
    for i in range(count):
        record = copy.deepcopy(APP_EXAMPLE)
        record["id"] = f"app{i:04d}"
        record["name"] = "Test App" if i == 0 else f"Test App {i:04d}"
        out.append(record)
    return out


@dataclass
class FixtureService:
    """The state behind the fixture server, and what it was sent."""

    apps: list[dict[str, Any]]
    webhook: dict[str, Any] = field(default_factory=lambda: {**copy.deepcopy(WEBHOOK_EXAMPLE), **HIDDEN})
    #: the first app's widget, ``{"configuration": ..., "widgetId": ...}`` (the list-chat-widget example's record)
    widget: dict[str, Any] = field(default_factory=lambda: copy.deepcopy(WIDGETS_EXAMPLE["data"]["body"]["data"][0]))
    requests: list[tuple[str, str, dict[str, str], Any]] = field(default_factory=list)

    def sent(self, method: str, path_end: str = "") -> list[Any]:
        """Bodies of the requests with this method whose path ends with ``path_end``."""
        return [body for m, path, _, body in self.requests if m == method and path.endswith(path_end)]


class _Record:
    """Records every request (method, path, query, JSON body) and answers 401 without the key/secret headers.

    A plain ASGI middleware: Starlette's ``@app.middleware("http")`` (``BaseHTTPMiddleware``) doubled the server's
    CPU per request, and test_real_service_shapes sends it thousands of requests.
    """

    def __init__(self, app: Any, service: FixtureService) -> None:
        self.app, self.service = app, service

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        received, raw, more = [], b"", True
        while more:
            message = await receive()
            received.append(message)
            raw += message.get("body", b"")
            more = message.get("more_body", False)
        query = dict(parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True))
        self.service.requests.append((scope["method"], scope["path"], query, json.loads(raw) if raw else None))
        headers = dict(scope["headers"])
        if not headers.get(b"key") or not headers.get(b"secret"):
            refusal = JSONResponse({"error": {"code": "AUTH_ERR_EMPTY_AUTH_HEADER", "message": "no key"}}, 401)
            await refusal(scope, receive, send)
            return

        async def replay() -> Any:
            return received.pop(0) if received else await receive()

        await self.app(scope, replay, send)


def create_fixture_app(service: FixtureService) -> FastAPI:
    """The fixture server over ``service`` (checks the key/secret headers are present, as the API requires)."""
    app = FastAPI()
    main_app = service.apps[0]["id"]
    returned = ("id", "name", "webhookURL", "createdAt", "updatedAt")  # what the examples show, nothing more

    def answer_hook() -> dict[str, Any]:
        return {k: service.webhook[k] for k in returned}

    app.add_middleware(_Record, service=service)

    @app.get("/apps")
    async def list_apps(perPage: int = 25, page: int = 1) -> Any:
        start = (page - 1) * perPage
        return {"data": service.apps[start:start + perPage]}  # no meta, as the newer example

    @app.get("/apps/{app_id}/extensions")
    async def list_extensions(app_id: str) -> Any:
        return EXTENSIONS_EXAMPLE

    @app.get("/apps/{app_id}/extensions/widget/v2/settings")
    async def list_widgets(app_id: str) -> Any:
        if app_id != main_app:
            return NO_WIDGETS
        answer = copy.deepcopy(WIDGETS_EXAMPLE)
        answer["data"]["body"]["data"] = [copy.deepcopy(service.widget)]
        return answer

    @app.put("/apps/{app_id}/extensions/widget/v2/settings")
    async def update_widget(app_id: str, request: Request) -> Any:
        settings = dict((await request.json())["settings"])
        widget_id = settings.pop("widgetId")
        if app_id == main_app and widget_id == service.widget["widgetId"]:
            service.widget["configuration"] = {**settings, "appId": service.widget["configuration"]["appId"]}
        return WIDGET_UPDATED

    @app.get("/apps/{app_id}/extensions/sms-notification/v1/settings")
    async def get_sms(app_id: str) -> Any:
        return JSONResponse(NO_SMS, 404)

    @app.get("/apps/{app_id}/webhooks")
    async def list_webhooks(app_id: str) -> Any:
        hooks = [answer_hook()] if app_id == main_app and service.webhook else []
        return {"data": hooks, "meta": {"pagination": {"total": len(hooks), "count": len(hooks), "per_page": 10,
                                                       "current_page": 1, "total_pages": 1}}}

    @app.get("/apps/{app_id}/webhooks/{hook_id}")
    async def get_webhook(app_id: str, hook_id: str) -> Any:
        return {"data": [{"data": answer_hook()}]}

    @app.put("/apps/{app_id}/webhooks/{hook_id}")
    async def update_webhook(app_id: str, hook_id: str, request: Request) -> Any:
        body = await request.json()
        service.webhook.update({k: v for k, v in body.items() if k != "password"})
        service.webhook["updatedAt"] = 1684145021
        return {"data": [{"data": answer_hook()}]}

    @app.delete("/apps/{app_id}/webhooks/{hook_id}")
    async def delete_webhook(app_id: str, hook_id: str) -> Any:
        return DELETED

    @app.get("/apps/{app_id}/settings")
    async def list_settings(app_id: str) -> Any:
        return SETTINGS_EXAMPLE

    @app.get("/apps/{app_id}/collaborators")
    async def list_collaborators(app_id: str) -> Any:
        return COLLABORATORS_EXAMPLE if app_id == main_app else {"data": []}

    @app.get("/apps/{app_id}/webhooks/{hook_id}/triggers")
    async def list_triggers(app_id: str, hook_id: str) -> Any:
        return TRIGGERS_EXAMPLE

    return app
