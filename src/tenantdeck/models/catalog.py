"""The service's tables as data: one source of truth for models, labels in plans, and the sandbox.

Everything here is transcribed from ``service-spec.md`` (toggles, defaults, required-ness) and
``management-api-facts.md`` (trigger ids, extension ids, listing values, limits). Keeping it as data rather than
scattered literals means a label shown in a plan, a default normalised in a diff and a field in the JSON Schema can
never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tenantdeck.models.extension_catalog import EXTENSION_LIST

ASSET_URL: Final = "https://widget-js.cometchat.io"

REGIONS: Final = ("us", "eu", "in")
APP_VERSION: Final = "3"
WIDGET_VERSION: Final = "v2"

# Limits (management-api-facts.md §7, §8, PC)
APP_NAME_MAX: Final = 100
WIDGET_NAME_MAX: Final = 100
WIDGETS_PER_APP: Final = 25
WEBHOOKS_PER_APP: Final = 25
#: collaborators of one app, owner and developers included (facts §3.4)
TEAM_PER_APP: Final = 25
#: the roles a draft gives, each with the key of its email list (in a draft's ``team`` block and in the API's
#: add-collaborator body); the owner and developers are the service's, shown and never changed
TEAM_LISTS: Final = {"admin": "admins", "moderator": "moderators"}
TEAM_ROLES: Final = tuple(TEAM_LISTS)
#: a team member's email: a local part, an @, a domain with a dot, no spaces (the draft and the sandbox check it)
EMAIL_PATTERN: Final = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"
EMAIL_MAX: Final = 254
WEBHOOK_ID_MAX: Final = 50
WEBHOOK_NAME_MAX: Final = 50
WEBHOOK_URL_MAX: Final = 255
WEBHOOK_USERNAME_MAX: Final = 50
WEBHOOK_PASSWORD_MAX: Final = 100


@dataclass(frozen=True, slots=True)
class Toggle:
    """One boolean of ``settings.main``.

    ``required`` is the spec's R column. ``default`` is ``None`` where the spec says "none": such a required toggle
    must be written in the draft, because there is nothing the tool could honestly fill in.
    ``extension`` names the extension that must be enabled before the toggle may be turned on.
    """

    key: str
    required: bool
    default: bool | None
    label: str
    extension: str | None = None
    topic: str = "messaging"  #: one of :data:`TOGGLE_TOPICS`: how an editor groups the 46 toggles
    description: str = ""  #: the spec's "Meaning" column, verbatim


MAIN_TOGGLES: Final[tuple[Toggle, ...]] = (
    Toggle("allow_add_members", False, True, "Allow adding group members",
           topic="groups", description="Allow adding group members"),
    Toggle("allow_creating_polls", True, None, "Enable polls", "polls",
           topic="messaging", description="Enable polls (needs the polls extension)"),
    Toggle("allow_delete_groups", True, True, "Allow deleting groups",
           topic="groups", description="Allow deleting groups"),
    Toggle("allow_kick_ban_members", True, True, "Allow kick and ban actions",
           topic="moderation", description="Allow kick and ban actions"),
    Toggle("allow_message_reactions", True, None, "Enable reactions", "reactions",
           topic="messaging", description="Enable reactions (needs the reactions extension)"),
    Toggle("allow_moderator_to_delete_member_messages", True, None, "Moderators may delete group messages",
           topic="moderation", description="Moderators may delete group messages"),
    Toggle("allow_promote_demote_members", True, None, "Allow changing member scopes",
           topic="moderation", description="Allow changing member scopes"),
    Toggle("block_user", True, True, "Allow blocking a user",
           topic="messaging", description="Allow blocking a user"),
    Toggle("create_groups", True, True, "Allow creating groups",
           topic="groups", description="Allow creating groups"),
    Toggle("enable_collaborative_document", True, None, "Collaborative document", "document",
           topic="groups", description="Needs the collaborative document extension enabled first"),
    Toggle("enable_collaborative_whiteboard", True, None, "Collaborative whiteboard", "whiteboard",
           topic="groups", description="Needs the collaborative whiteboard extension enabled first"),
    Toggle("enable_deleting_messages", True, True, "Allow deleting messages",
           topic="messaging", description="Allow deleting messages"),
    Toggle("enable_editing_messages", True, True, "Allow editing messages",
           topic="messaging", description="Allow editing messages"),
    Toggle("enable_message_translation", True, None, "Message translation", "message-translation",
           topic="messaging", description="Needs the message translation extension enabled first"),
    Toggle("enable_sending_messages", True, True, "Allow sending messages",
           topic="messaging", description="Allow sending messages"),
    Toggle("enable_sound_for_calls", True, True, "Sound for incoming calls",
           topic="notifications", description="Sound for incoming calls"),
    Toggle("enable_sound_for_messages", True, True, "Sound for incoming messages",
           topic="notifications", description="Sound for incoming messages"),
    Toggle("enable_threaded_replies", True, True, "Allow message threads",
           topic="messaging", description="Allow message threads"),
    Toggle("enable_video_calling", True, True, "Enable video calling",
           topic="calls", description="Enable video calling"),
    Toggle("enable_voice_calling", True, True, "Enable voice calling",
           topic="calls", description="Enable voice calling"),
    Toggle("hide_deleted_messages", True, True, "Hide bubbles of deleted messages",
           topic="messaging", description="Hide bubbles of deleted messages"),
    Toggle("hide_join_leave_notifications", True, True, "Hide join/leave notices in chat",
           topic="groups", description="Hide join/leave notices in chat"),
    Toggle("join_or_leave_groups", True, True, "Allow joining and leaving groups",
           topic="groups", description="Allow joining and leaving groups"),
    Toggle("send_emojis", True, True, "Show the emoji keyboard",
           topic="messaging", description="Show the emoji keyboard"),
    Toggle("send_files", False, True, "Allow sending files",
           topic="media", description="Allow sending files"),
    Toggle("send_message_in_private_to_group_member", True, None, "Allow private messages to group members",
           topic="groups", description="Allow private messages to group members"),
    Toggle("send_photos_videos", True, True, "Allow sending photos and videos",
           topic="media", description="Allow sending photos and videos"),
    Toggle("share_live_reactions", True, True, "Allow live reactions",
           topic="messaging", description="Allow live reactions"),
    Toggle("show_call_notifications", True, True, "Notify on incoming calls",
           topic="notifications", description="Notify on incoming calls"),
    Toggle("show_delivery_read_indicators", True, True, "Show delivery and read receipts",
           topic="messaging", description="Show delivery and read receipts"),
    Toggle("show_emojis_in_larger_size", True, True, "Larger emojis when one to three are sent",
           topic="messaging", description="Larger emojis when one to three are sent in a message"),
    Toggle("show_stickers", False, True, "Show stickers", "stickers",
           topic="media", description="Needs the stickers extension enabled first"),
    Toggle("show_typing_indicators", False, None, "Show typing indicators",
           topic="messaging", description="Show typing indicators"),
    Toggle("show_user_presence", False, True, "Show user presence",
           topic="messaging", description="Show user presence"),
    Toggle("view_group_members", False, True, "Allow viewing group members",
           topic="groups", description="Allow viewing group members"),
    Toggle("allow_mention_members", False, False, "Allow mentioning members",
           topic="messaging", description="Allow mentioning members"),
    Toggle("enable_replying_to_messages", False, False, "Enable replying to messages",
           topic="messaging", description="Enable replying to messages"),
    Toggle("enable_share_copy_forward_messages", False, False, "Enable share, copy and forward",
           topic="messaging", description="Enable share, copy and forward"),
    Toggle("highlight_messages_from_moderators", False, False, "Highlight moderator messages",
           topic="moderation", description="Highlight moderator messages"),
    Toggle("show_call_recording_option", False, False, "Show call recording option",
           topic="calls", description="Show call recording option"),
    Toggle("send_voice_notes", False, False, "Allow voice notes",
           topic="media", description="Allow voice notes"),
    Toggle("send_gifs", False, False, "Allow GIFs",
           topic="media", description="Allow GIFs"),
    Toggle("share_location", False, False, "Allow sharing location",
           topic="media", description="Allow sharing location"),
    Toggle("view_shared_media", False, True, "Allow viewing shared media in a group",
           topic="media", description="Allow viewing shared media in a group"),
    Toggle("set_groups_in_qna_mode_by_moderators", False, False, "Moderators may set groups to Q&A mode",
           topic="moderation", description="Moderators may set groups to Q&A mode"),
    Toggle("send_reply_in_private_to_group_member", False, False, "Reply privately to a group member",
           topic="groups", description="Reply privately to a group member"),
)
TOGGLES_BY_KEY: Final = {t.key: t for t in MAIN_TOGGLES}

#: Topics of the main toggles, in the order an editor shows them.
TOGGLE_TOPICS: Final = ("messaging", "groups", "calls", "media", "moderation", "notifications")

#: toggle key -> extension id that must be enabled first
TOGGLE_EXTENSIONS: Final = {t.key: t.extension for t in MAIN_TOGGLES if t.extension}

NAVIGATION_SECTIONS: Final = ("chats", "users", "groups", "calls", "settings")

#: Allowed values of the sidebar's listing strings (facts §8; start_a_new_conversation is inferred there).
LISTING_VALUES: Final[dict[str, tuple[str, ...]]] = {
    "recent_chat_listing": ("all_chats", "users", "groups"),
    "user_listing": ("all_users", "friends", "none"),
    "group_listing": ("public_and_password_protected_groups", "public_groups", "password_protected_groups"),
    "start_a_new_conversation": ("all_chats", "users", "groups"),
}

#: Human labels for style and sidebar fields, used when rendering plans.
STYLE_LABELS: Final = {
    "custom_css": "Custom CSS",
    "custom_js": "Custom JS",
    "docked_layout_icon_background": "Docked icon background colour",
    "docked_layout_icon_close": "Docked icon image (closed)",
    "docked_layout_icon_open": "Docked icon image (open)",
    "primary_color": "Primary colour",
    "foreground_color": "Foreground colour",
    "background_color": "Background colour",
    "override_system_background_colors": "Override system background colours",
}
SIDEBAR_LABELS: Final = {
    "chats": "Show Chats section",
    "users": "Show Users section",
    "groups": "Show Groups section",
    "calls": "Show Calls section",
    "user_settings": "Show User Settings section",
    "recent_chat_listing": "Chats in the recent chat section",
    "user_listing": "Users in the user list",
    "sidebar_navigation_sequence": "Order of sidebar sections",
    "start_a_new_conversation": "Start a new conversation scope",
    "group_listing": "Group listing scope",
}

#: What the service fills in when a field is left out; used to normalise remote objects so defaults never show
#: as changes. The foreground default is written " #000000" in the spec (a typo); it is normalised here.
STYLE_DEFAULTS: Final[dict[str, object]] = {
    "custom_js": "v2",
    "docked_layout_icon_background": "#03a9f4",
    "docked_layout_icon_close": f"{ASSET_URL}/v2/resources/chat_close.svg",
    "docked_layout_icon_open": f"{ASSET_URL}/v2/resources/chat_bubble.svg",
    "primary_color": "#03A9F4",
    "foreground_color": "#000000",
    "background_color": "#FFFFFF",
    "override_system_background_colors": True,
}
SIDEBAR_DEFAULTS: Final[dict[str, object]] = {
    "chats": True,
    "users": True,
    "groups": True,
    "recent_chat_listing": "all_chats",
    "user_listing": "all_users",
    "sidebar_navigation_sequence": list(NAVIGATION_SECTIONS),
    "start_a_new_conversation": "all_chats",
    "group_listing": "public_and_password_protected_groups",
}
MAIN_DEFAULTS: Final[dict[str, bool]] = {t.key: t.default for t in MAIN_TOGGLES if t.default is not None}

SMS_DEFAULTS: Final[dict[str, object]] = {
    "fromMobileNo": "+12345678",
    "messageDelay": 60,
    "websiteURL": "www.somewebsite.com",
}

#: Known extension ids and a readable name for each, for editors and plans (the ids are the API's; names are ours):
#: read off :data:`tenantdeck.models.extension_catalog.EXTENSION_LIST`, the one table of extensions.
EXTENSION_IDS: Final[tuple[str, ...]] = tuple(info.id for info in EXTENSION_LIST)
EXTENSION_NAMES: Final[dict[str, str]] = {info.id: info.name for info in EXTENSION_LIST}

#: Webhook trigger ids: the facts' 46 (§7, WH-OV), ``user_mentioned`` (the spec's Events table), and the ones the
#: vendor's webhook pages publish besides: the ringing outcomes ``call_busy``, ``call_cancelled``,
#: ``call_rejected``, ``call_unanswered`` (calls/webhooks-ringing.mdx) and the enhanced-messaging-status
#: ``message_delivered_to_all``, ``message_read_by_all`` (the webhook events page). Order: the editor's.
TRIGGER_IDS: Final[tuple[str, ...]] = (
    "message_sent", "message_edited", "message_deleted", "message_reaction_added", "message_reaction_removed",
    "user_blocked", "user_unblocked", "user_mentioned",
    "group_created", "group_updated", "group_deleted", "group_member_joined", "group_member_left",
    "group_member_added", "group_member_kicked", "group_member_banned", "group_member_unbanned",
    "group_member_scope_changed", "group_owner_transferred",
    "user_connection_status_changed", "message_delivery_receipt", "message_read_receipt",
    "message_delivered_to_all", "message_read_by_all",
    "call_initiated", "call_started", "call_participant_joined", "call_participant_left", "call_ended",
    "call_busy", "call_cancelled", "call_rejected", "call_unanswered",
    "meeting_started", "meeting_participant_joined", "meeting_participant_left", "meeting_ended",
    "recording_generated", "transcription_generated",
    "after_campaign_completed", "after_campaign_failed", "after_notification_created", "after_feed_item_sent",
    "after_feed_item_delivered", "after_feed_item_read", "after_feed_item_interacted",
    "after_push_notification_sent", "after_push_notification_delivered", "after_push_notification_clicked",
    "moderation_engine_approved", "moderation_engine_blocked", "moderation_manual_approved",
    "moderation_engine_failed",
)  # fmt: skip

#: When each trigger fires, in the vendor's words where its webhook pages give them (webhooks overview, the
#: events page, the ringing and call-session pages); the campaign, feed, push, transcription and
#: engine-failure triggers have no published description, so theirs say what the id names.
TRIGGER_DESCRIPTIONS: Final[dict[str, str]] = {
    "message_sent": "Triggered after a message is sent.",
    "message_edited": "Triggered after a message is edited.",
    "message_deleted": "Triggered after a message is deleted.",
    "message_reaction_added": "Triggered when a user reacts to a message.",
    "message_reaction_removed": "Triggered when a reaction is removed.",
    "user_blocked": "Triggered when a user blocks another user.",
    "user_unblocked": "Triggered when a user unblocks another user.",
    "user_mentioned": "Triggered when a user is mentioned in a message.",
    "group_created": "Triggered after a group is created.",
    "group_updated": "Triggered after a group is updated.",
    "group_deleted": "Triggered after a group is deleted.",
    "group_member_joined": "Triggered when a user joins a group.",
    "group_member_left": "Triggered when a user leaves a group.",
    "group_member_added": "Triggered when a member is added.",
    "group_member_kicked": "Triggered when a member is kicked.",
    "group_member_banned": "Triggered when a member is banned.",
    "group_member_unbanned": "Triggered when a member is unbanned.",
    "group_member_scope_changed": "Triggered when a member's scope changes.",
    "group_owner_transferred": "Triggered when group ownership is transferred.",
    "user_connection_status_changed": "Triggered when a user connects/disconnects.",
    "message_delivery_receipt": "Triggered when a message is delivered to the client.",
    "message_read_receipt": "Triggered when a message is marked as read.",
    "message_delivered_to_all": "Triggered when a message was delivered to all the participants of a group "
    "(Enhanced Messaging Status).",
    "message_read_by_all": "Triggered when a message was read by all the participants of a group "
    "(Enhanced Messaging Status).",
    "call_initiated": "Triggered when a user initiates a call to another user or group.",
    "call_started": "Triggered when the call session begins (first participant joins after accepting).",
    "call_participant_joined": "Triggered when a participant joins the active call.",
    "call_participant_left": "Triggered when a participant leaves the active call.",
    "call_ended": "Triggered when the call session ends (all participants have left).",
    "call_busy": "Triggered when a 1-on-1 call cannot connect because the recipient is already on another call.",
    "call_cancelled": "Triggered when the caller cancels the call before it is answered.",
    "call_rejected": "Triggered when the recipient explicitly rejects a 1-on-1 call.",
    "call_unanswered": "Triggered when a call goes unanswered (for group calls: no member joins at all).",
    "meeting_started": "Triggered when a call session begins.",
    "meeting_participant_joined": "Triggered when a participant joins the session.",
    "meeting_participant_left": "Triggered when a participant leaves the session.",
    "meeting_ended": "Triggered when the session ends (all participants have left).",
    "recording_generated": "Triggered when a call or meeting recording is ready for download.",
    "transcription_generated": "A transcription was generated (no published description).",
    "after_campaign_completed": "A campaign completed (no published description).",
    "after_campaign_failed": "A campaign failed (no published description).",
    "after_notification_created": "A notification was created (no published description).",
    "after_feed_item_sent": "A feed item was sent (no published description).",
    "after_feed_item_delivered": "A feed item was delivered (no published description).",
    "after_feed_item_read": "A feed item was read (no published description).",
    "after_feed_item_interacted": "A feed item was interacted with (no published description).",
    "after_push_notification_sent": "A push notification was sent (no published description).",
    "after_push_notification_delivered": "A push notification was delivered (no published description).",
    "after_push_notification_clicked": "A push notification was clicked (no published description).",
    "moderation_engine_approved": "Triggered when a message is auto-approved.",
    "moderation_engine_blocked": "Triggered when a message is auto-blocked.",
    "moderation_manual_approved": "Triggered when a blocked message is manually approved.",
    "moderation_engine_failed": "The moderation engine failed on a message (no published description).",
}

#: Webhook fields the service takes but never returns (facts §7: the get/list examples carry only id, name,
#: webhookURL, createdAt, updatedAt; ``webhookSchema`` adds ``enabled``). Nothing can be learned about them by
#: reading, so the tool only ever knows what it last pushed itself (docs/real-service.md).
WEBHOOK_WRITE_ONLY: Final[tuple[str, ...]] = ("useBasicAuth", "username", "password", "retryOnFailure")
#: What a webhook create sends for fields the draft leaves out: the API's documented defaults (``retryOnFailure``
#: false) and the model's (Basic Auth off, enabled), written explicitly so the base records what was pushed.
WEBHOOK_CREATE_DEFAULTS: Final[dict[str, bool]] = {"useBasicAuth": False, "enabled": True, "retryOnFailure": False}
#: The documented rule for webhook ids (WH-OV: alphanumeric, no spaces, at most 50). The service itself holds ids
#: outside it (its own OpenAPI example is ``test_webhook201``), so it applies only to ids a draft *creates*.
WEBHOOK_ID_PATTERN: Final = r"^[A-Za-z0-9]{1,50}$"

#: How an editor groups the trigger ids: (category, id prefix), in the order shown. A trigger matching no prefix
#: falls in :data:`TRIGGER_OTHER`. The grouping is derived from the ids themselves, so a new id needs no entry.
TRIGGER_PREFIXES: Final[tuple[tuple[str, str], ...]] = (
    ("messages", "message_"),
    ("users", "user_"),
    ("groups", "group_"),
    ("calls", "call_"),
    ("meetings", "meeting_"),
    ("moderation", "moderation_"),
    ("notifications and campaigns", "after_"),
)
TRIGGER_OTHER: Final = "recordings and other"


def trigger_category(trigger: str) -> str:
    """The category an editor shows ``trigger`` under (``message_sent`` -> ``messages``)."""
    for category, prefix in TRIGGER_PREFIXES:
        if trigger.startswith(prefix):
            return category
    return TRIGGER_OTHER


#: category -> the known trigger ids in it, in catalog order; categories in :data:`TRIGGER_PREFIXES` order.
TRIGGER_CATEGORIES: Final[dict[str, tuple[str, ...]]] = {
    category: tuple(t for t in TRIGGER_IDS if trigger_category(t) == category)
    for category in (*(c for c, _ in TRIGGER_PREFIXES), TRIGGER_OTHER)
}


# -- app settings (facts §3.5; the vendor OpenAPI's list-settings example) ----------------------------------------


@dataclass(frozen=True, slots=True)
class AppSetting:
    """One app setting the service reports: its key, label and whether the API can set it (``POST settings`` maps
    booleans only; a list value such as ``...advanced.included`` is the service's to say)."""

    key: str
    label: str
    settable: bool = True


APP_SETTINGS: Final = (
    AppSetting("core.conversations.updateOnGroupActions", "Conversations update on group actions"),
    AppSetting("core.conversations.updateOnReplies", "Conversations update on replies"),
    AppSetting("core.conversations.updateOnCallActivity", "Conversations update on call activity"),
    AppSetting("core.conversations.updateOnMessageActions", "Conversations update on message actions"),
    AppSetting("core.conversations.updateOnCustomMessage", "Conversations update on custom messages"),
    AppSetting("core.threads.updateOnMessageActions", "Threads update on message actions"),
    AppSetting("core.notifications.push.accessible", "Push notifications accessible"),
    AppSetting("core.notifications.push.enabled", "Push notifications enabled"),
    AppSetting("core.notifications.push.advanced.enabled", "Advanced push notifications enabled"),
    AppSetting("core.notifications.push.advanced.included", "Advanced push features included", settable=False),
)
APP_SETTING_BY_KEY: Final = {s.key: s for s in APP_SETTINGS}

#: what a draft might hold that tenantdeck deliberately does not manage, and why (said instead of "unknown key")
NOT_MANAGED: Final = {
    "moderation": "moderation is not managed by tenantdeck: the management API's moderation rules are deprecated "
                  "(the vendor marks them so); configure moderation in the dashboard or with the per-app "
                  "/moderation REST API",
}
