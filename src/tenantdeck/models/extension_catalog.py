"""Each extension's settings as data: the one place a field, its type, default, choices and secrecy are written.

Transcribed from the vendor's management OpenAPI (``../shared/reference/vendor-openapi/``, the request schemas of
``/apps/{appId}/extensions/{extId}/v1/settings``) and, for the extensions it does not carry, from
``management-api-facts.md`` §3.3 and §10. Everything about extension settings is derived from this table:

* the draft's pydantic models and so the JSON Schema (:mod:`tenantdeck.models.extension_settings`),
* labels and help in plans and in the editor's generated forms (a field's ``label`` and ``description``),
* the sample draft, and the values pull fills in for a field the service leaves out (``default``),
* which fields are secrets (``${VAR}`` in a draft, fingerprinted in the base),
* the sandbox's request validation and its store/update/delete routes (``store`` and ``reply``).

Adding an extension is one :class:`ExtensionSpec` in :data:`EXTENSIONS`. Pure data: importing this module imports
no pydantic (start-up time, see ``docs/benchmarks.md``).

Where the OpenAPI and the facts file disagree, the OpenAPI is followed and the difference is written beside the
entry (``docs/real-service.md`` lists them all).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

#: what a setting holds:
#: ``bool``; ``integer`` (a whole number, such as an enum code); ``number`` (int or float, not a bool);
#: ``string``; ``strings`` (a list of strings); ``mapping`` (string -> string); ``object`` (the nested
#: ``fields``); ``objects`` (a list of objects with ``fields``).
SettingType = Literal["bool", "integer", "number", "string", "strings", "mapping", "object", "objects"]


@dataclass(frozen=True, slots=True)
class Setting:
    """One field of an extension's ``settings`` object, exactly as the API names it.

    ``required``: the API's request schema requires it (a draft must write it; pull fills it from ``default`` when
    the service leaves it out, else the pulled draft says what is missing). ``secret``: the last part of the
    ``${VAR}`` name tenantdeck derives for it (``TENANTDECK_<APP>_GIPHY_API_KEY``); such a field is never a value
    in a draft the tool writes, a plan or a screen. ``choices``: the allowed values with what each means (shown as
    a select). ``regex``: each value is a regular expression, compiled at validate time. ``reported_as``: the name
    the service's GET uses when it differs from the request's (stickers). ``open``: objects may carry fields the
    catalog does not list (kept, not refused). ``int_id``: an id the service may hold as a whole number where the
    vendor's example shows a string (SendGrid's unsubscribe group ids are integers; data-masking's mask ids): the
    draft and the request take a string or an integer, and the value keeps the JSON type the service sent, so a
    push of an unchanged value sends the same type (docs/real-service.md §9).
    """

    key: str
    type: SettingType
    label: str
    description: str = ""
    required: bool = False
    default: Any = None
    choices: tuple[tuple[Any, str], ...] = ()
    secret: str | None = None
    fields: tuple[Setting, ...] = ()
    regex: bool = False
    minimum: float | None = None
    reported_as: str | None = None
    open: bool = False
    unit: str = ""  #: what a number counts ("seconds"), for its messages and labels
    maximum: float | None = None
    #: a string's length in characters, or how many items a list (``strings``, ``objects``) or ``mapping`` holds
    min_length: int | None = None
    max_length: int | None = None
    int_id: bool = False

    @property
    def choice_values(self) -> tuple[Any, ...]:
        return tuple(value for value, _ in self.choices)

    def limits(self) -> str:
        """The setting's bounds in words ("at least 0 seconds", "from 2 to 10", "at most 100 characters long",
        "at most 10 items"; empty when it has none): the form's help line and :meth:`check`'s messages."""
        if self.type in ("integer", "number"):
            return _range_words(self.minimum, self.maximum, self.unit)
        if self.type == "string":
            return _range_words(self.min_length, self.max_length, "characters", " long")
        if self.type in ("strings", "objects", "mapping"):
            return _range_words(self.min_length, self.max_length, "items")
        return ""

    def check(self, value: Any) -> str | None:
        """Why ``value`` is outside this setting's bounds ("must be from 2 to 10", "must have at most 10 items"),
        or None: the one check (and message) of a bound, which the models' validation, the editor's form, bulk
        edit and the tests use. Only bounds: a value of another type is the models' to refuse, not judged here."""
        if self.type in ("integer", "number"):
            size = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        elif self.type == "string":
            size = len(value) if isinstance(value, str) else None
        elif self.type in ("strings", "objects", "mapping"):
            size = len(value) if isinstance(value, list | dict) else None
        else:
            size = None
        low = self.minimum if self.type in ("integer", "number") else self.min_length
        high = self.maximum if self.type in ("integer", "number") else self.max_length
        if size is None or ((low is None or size >= low) and (high is None or size <= high)):
            return None
        return f"must {'have' if self.type in ('strings', 'objects', 'mapping') else 'be'} {self.limits()}"


def _range_words(low: float | None, high: float | None, unit: str, tail: str = "") -> str:
    """``at least LOW UNIT``, ``at most HIGH UNIT`` or ``from LOW to HIGH UNIT`` (one of one unit: ``1 report``)."""
    def words(n: float, alone: bool) -> str:
        number = str(int(n)) if float(n).is_integer() else str(n)
        noun = unit[:-1] if alone and n == 1 and unit.endswith("s") else unit
        return f"{number} {noun}{tail}" if noun else f"{number}{tail}"

    if low is not None and high is not None:
        return f"from {str(int(low)) if float(low).is_integer() else low} to {words(high, False)}"
    if low is not None:
        return f"at least {words(low, True)}"
    return f"at most {words(high, True)}" if high is not None else ""


@dataclass(frozen=True, slots=True)
class Requirement:
    """Fields that become required when another holds one of some values (push-notification's FCM credentials are
    needed when the provider is FCM or both)."""

    when: str
    values: tuple[Any, ...]
    then: tuple[str, ...]
    why: str


@dataclass(frozen=True, slots=True)
class ExtensionInfo:
    """An extension the service offers: its API id, the name editors and plans show, and its category in the
    service's list (the sandbox's ``GET /apps/{appId}/extensions``)."""

    id: str
    name: str
    category: str


#: Every extension the service is known to offer (facts §2: settings paths and the list example), in id order:
#: the one table of ids and names. ``catalog.EXTENSION_IDS``/``EXTENSION_NAMES``, an :class:`ExtensionSpec`'s
#: ``name`` and the sandbox's extension list are read off it (tests/models/test_extension_names.py).
EXTENSION_LIST: Final[tuple[ExtensionInfo, ...]] = (
    ExtensionInfo("broadcast", "Broadcast", "User Engagement"),
    ExtensionInfo("chatwoot", "Chatwoot", "Customer Support"),
    ExtensionInfo("data-masking", "Data masking", "Security"),
    ExtensionInfo("document", "Collaborative document", "Collaboration"),
    ExtensionInfo("e2ee", "End-to-end encryption", "Security"),
    ExtensionInfo("email-notification", "Email notification", "Notifications"),
    ExtensionInfo("email-replies", "Email replies", "Notifications"),
    ExtensionInfo("emojis", "Emojis", "User Experience"),
    ExtensionInfo("gifs-gfycat", "GIFs (Gfycat)", "User Experience"),
    ExtensionInfo("gifs-giphy", "GIFs (Giphy)", "User Experience"),
    ExtensionInfo("gifs-tenor", "GIFs (Tenor)", "User Experience"),
    ExtensionInfo("human-moderation", "Human moderation", "Moderation"),
    ExtensionInfo("image-moderation", "Image moderation", "Moderation"),
    ExtensionInfo("intercom", "Intercom", "Customer Support"),
    ExtensionInfo("link-preview", "Link preview", "User Experience"),
    ExtensionInfo("mentions", "Mentions", "User Engagement"),
    ExtensionInfo("message-shortcuts", "Message shortcuts", "User Experience"),
    ExtensionInfo("message-translation", "Message translation", "User Experience"),
    ExtensionInfo("pin-message", "Pin message", "User Engagement"),
    ExtensionInfo("polls", "Polls", "User Engagement"),
    ExtensionInfo("profanity-filter", "Profanity filter", "Moderation"),
    ExtensionInfo("push-notification", "Push notification", "Notifications"),
    ExtensionInfo("reactions", "Reactions", "User Engagement"),
    ExtensionInfo("report-message", "Report message", "Moderation"),
    ExtensionInfo("report-user", "Report user", "Moderation"),
    ExtensionInfo("rich-media", "Rich media preview", "User Experience"),
    ExtensionInfo("save-message", "Save message", "User Experience"),
    ExtensionInfo("sentiment-analysis", "Sentiment analysis", "Moderation"),
    ExtensionInfo("smart-reply", "Smart reply", "User Experience"),
    ExtensionInfo("sms-notification", "SMS notification", "Notifications"),
    ExtensionInfo("stickers", "Stickers", "User Experience"),
    ExtensionInfo("stickers-stipop", "Stickers (Stipop)", "User Experience"),
    ExtensionInfo("thumbnail-generation", "Thumbnail generation", "User Experience"),
    ExtensionInfo("url-shortener-bitly", "URL shortener (Bitly)", "User Experience"),
    ExtensionInfo("url-shortener-tinyurl", "URL shortener (TinyURL)", "User Experience"),
    ExtensionInfo("virus-malware-scanner", "Virus and malware scanner", "Security"),
    ExtensionInfo("voice-transcription", "Voice transcription", "User Experience"),
    ExtensionInfo("whiteboard", "Collaborative whiteboard", "Collaboration"),
    ExtensionInfo("widget", "Chat widget", "Integrations"),
    ExtensionInfo("xss-filter", "XSS filter", "Security"),
)
EXTENSION_INFO: Final[dict[str, ExtensionInfo]] = {info.id: info for info in EXTENSION_LIST}


def extension_name(ext_id: str) -> str:
    """The name an editor or a plan shows for ``ext_id`` (the id itself when the catalog does not know it)."""
    info = EXTENSION_INFO.get(ext_id)
    return info.name if info is not None else ext_id


@dataclass(frozen=True, slots=True)
class ExtensionSpec:
    """One extension's ``/v1/settings`` resource.

    ``store``: the method that creates settings (stickers and data-masking have no POST: their PUT stores or
    updates). ``reply``: where a store/update/delete answer says it worked: ``"data"`` is the usual double-wrapped
    ``data.body.data.success``, ``"body"`` SMS's exception, ``data.body.success`` (facts §3.3). ``removals``: a list
    setting whose items the API removes by id in another field, (list key, removal key): data-masking's custom masks
    are removed with ``deleteCustomRegexData``; the draft holds the masks, the ids to remove are worked out at push.
    ``documented``: False when the vendor publishes no settings schema (the draft then refuses a settings block).
    """

    id: str
    settings: tuple[Setting, ...]
    store: Literal["POST", "PUT"] = "POST"
    reply: Literal["data", "body"] = "data"
    requirements: tuple[Requirement, ...] = ()
    removals: tuple[tuple[str, str], ...] = ()
    documented: bool = True
    note: str = ""

    @property
    def name(self) -> str:
        """The extension's name, from :data:`EXTENSION_LIST` (the one table of names)."""
        return extension_name(self.id)

    @property
    def path(self) -> str:
        """The API path below ``/apps/{appId}``."""
        return f"/extensions/{self.id}/v1/settings"

    def setting(self, key: str) -> Setting | None:
        return next((s for s in self.settings if s.key == key), None)

    def fields(self) -> list[tuple[str, Setting]]:
        """(dotted path, setting) of every field, a nested object's own fields included after it
        (``fcmCredentials``, then ``fcmCredentials.private_key``...); a list of objects is one field."""
        out: list[tuple[str, Setting]] = []

        def walk(settings: tuple[Setting, ...], prefix: str) -> None:
            for setting in settings:
                out.append((prefix + setting.key, setting))
                if setting.type == "object":
                    walk(setting.fields, f"{prefix}{setting.key}.")

        walk(self.settings, "")
        return out


def _flag(key: str, label: str, default: bool, description: str = "") -> Setting:
    return Setting(key, "bool", label, description or label, default=default)


_DROP = Setting("dropMessage", "bool", "Drop the message", "Drop a message that matches instead of masking it",
                required=True, default=False)

_PUSH_TOGGLES = (
    _flag("sendNewMessageNotification", "Notify new messages", True),
    _flag("sendEditMessageNotification", "Notify edited messages", False),
    _flag("sendDeleteMessageNotification", "Notify deleted messages", False),
    _flag("sendThreadedMessageNotification", "Notify thread replies", True),
    _flag("sendIncomingCallNotification", "Notify incoming calls", True),
    _flag("sendMissedCallNotification", "Notify missed calls", True),
    _flag("sendMemberJoinedNotification", "Notify a member joined", True),
    _flag("sendMemberLeftNotification", "Notify a member left", True),
    _flag("sendMemberKickedNotification", "Notify a member kicked", True),
    _flag("sendMemberBannedNotification", "Notify a member banned", True),
    _flag("sendMemberUnbannedNotification", "Notify a member unbanned", True),
    _flag("sendMemberAddedNotification", "Notify a member added", True),
    _flag("sendMemberScopeChangedNotification", "Notify a member's scope changed", False),
)

def _report(what: str) -> tuple[Setting, ...]:
    """report-user's and report-message's settings (the same fields; each secret gets its own variable name)."""
    return (
        Setting("maxReports", "number", "Reports before action", "Maximum number of unique reports after which "
                "moderation actions need to be taken", required=True, default=3, minimum=1, unit="reports"),
        Setting("useWebhook", "bool", "Send reports to a webhook", "Send reports to webhook and perform custom "
                "actions", required=True, default=True),
        Setting("webhookURL", "string", "Webhook URL", "The webhook URL to be triggered"),
        Setting("basicAuthUsername", "string", "Basic Auth username", "Basic Auth username for calling your webhook"),
        Setting("basicAuthPassword", "string", "Basic Auth password", "Basic Auth password for calling your webhook "
                "(secret)", secret=f"{what}_WEBHOOK_PASSWORD"),
    )


_WEBHOOK_NEEDS_URL = Requirement("useWebhook", (True,), ("webhookURL",), "reports go to a webhook")

#: data-masking's three built-in masks (ids 1-3, all off), as the vendor's request schema names them; its JSON writes
#: each pattern escaped twice (`\\\\d`), these are the patterns the names describe
_DEFAULT_MASKS: Final = (
    {"enableFlag": False, "id": "1", "name": "US Phone numbers", "regex": r"[2-9]\d{2}-\d{3}-\d{4}"},
    {"enableFlag": False, "id": "2", "name": "Emails", "regex": r"\w+([.-]?\w+)*@\w+([.-]?\w+)*(\.\w{2,10})+"},
    {"enableFlag": False, "id": "3", "name": "SSN", "regex": r"\d{3}-\d{2}-\d{4}"},
)

EXTENSIONS: Final[tuple[ExtensionSpec, ...]] = (
    ExtensionSpec("profanity-filter", (
        Setting("dropMessage", "bool", "Drop the message", "Drop a message with a bad word instead of masking it",
                required=True, default=False),
        Setting("badwords", "strings", "Bad words", "Words masked (or dropped) in messages", required=True,
                default=()),
    )),
    ExtensionSpec("data-masking", (
        Setting("dropMessage", "bool", "Drop the message",
                "Drop a message with sensitive information instead of masking it", required=True, default=False),
        Setting("defaultRegexData", "objects", "Default masks", "The service's masks (1 US phone numbers, "
                "2 emails, 3 SSN): turn each on or off", required=True, default=_DEFAULT_MASKS, fields=(
                    Setting("id", "string", "Id", required=True, int_id=True),
                    Setting("name", "string", "Name", required=True),
                    Setting("regex", "string", "Pattern", required=True, regex=True),
                    Setting("enableFlag", "bool", "On", required=True, default=False),
                )),
        Setting("customregexData", "objects", "Custom masks", "Your own masks: a name, a regular expression and "
                "an id of your choice", required=True, default=(), fields=(
                    Setting("id", "string", "Id", required=True, int_id=True),
                    Setting("name", "string", "Name", required=True),
                    Setting("regex", "string", "Pattern", required=True, regex=True),
                )),
    ), store="PUT", removals=(("customregexData", "deleteCustomRegexData"),),
        note="PUT stores or updates (no POST); deleteCustomRegexData is worked out at push from the masks removed"),
    ExtensionSpec("push-notification", (
        Setting("version", "integer", "Version", required=True, default=2, choices=(
            (2, "Token-based (recommended)"), (0, "Topic-based + token-based"), (1, "Topic-based (legacy)"))),
        Setting("pushProvider", "integer", "Provider", required=True, default=1, choices=(
            (1, "FCM"), (2, "APNs"), (0, "FCM and APNs"))),
        Setting("fcmCredentials", "object", "FCM credentials", "From the service account JSON file of the "
                "Firebase console", fields=(
                    Setting("project_id", "string", "Project id", required=True),
                    Setting("client_email", "string", "Client email", required=True),
                    Setting("private_key", "string", "Private key", "Private key (secret)", required=True,
                            secret="FCM_PRIVATE_KEY"),
                    Setting("private_key_id", "string", "Private key id", required=True),
                )),
        Setting("notificationInPayload", "object", "'notification' key in the payload", fields=(
            _flag("web", "Web", True, "Include 'notification' key for Web"),
            _flag("android", "Android", True, "Include 'notification' key for Android"),
            _flag("ionic_cordova", "Ionic / Cordova", True, "Include 'notification' key for Ionic"),
            _flag("react_native", "React Native", False, "Include 'notification' key for React native"),
            _flag("ios", "iOS", True, "Include 'notification' key for iOS"),
            _flag("flutter", "Flutter", True, "Include 'notification' key for Flutter"),
        )),
        _flag("useP8", "Use a .p8 key (APNs)", True, "APNs only. Use .p8 as it never expires"),
        Setting("keyId", "string", "APNs key id", "APNs only"),
        Setting("teamId", "string", "APNs team id", "APNs only"),
        Setting("bundleId", "string", "APNs bundle id", "APNs only"),
        _flag("sendApnsProduction", "APNs production", True, "APNs only. 'true' for apps available on the Appstore"),
        *_PUSH_TOGGLES,
        Setting("cometchatMessagePayloadOptions", "object", "Payload options", fields=(
            _flag("skipSenderMetadata", "Skip sender metadata", False,
                  "Excludes sender's metadata from the message object in the push payload"),
            _flag("skipReceiverMetadata", "Skip receiver metadata", False,
                  "Excludes receiver's metadata from the message object in the push payload"),
            _flag("skipMessageMetadata", "Skip message metadata", False,
                  "Excludes the message metadata from the message object in the push payload"),
            _flag("trimMessageText", "Trim message text", True,
                  "Trims the message text so the payload stays under 4 KB (larger ones may not be delivered)"),
        )),
    ), requirements=(
        Requirement("pushProvider", (1, 0), ("fcmCredentials",), "the provider includes FCM"),
        Requirement("pushProvider", (2, 0), ("keyId", "teamId", "bundleId"), "the provider includes APNs"),
    )),
    ExtensionSpec("email-notification", (
        Setting("sendGridApiKey", "string", "SendGrid API key", "SendGrid API key (secret)",
                secret="SENDGRID_API_KEY"),
        Setting("messageDelay", "number", "Seconds unread before an email", "Time interval after which "
                "notifications are sent", required=True, default=120, minimum=0, unit="seconds"),
        Setting("senderEmail", "string", "Sender email", "SendGrid sender email for notifications", required=True),
        Setting("senderName", "string", "Sender name", "SendGrid sender name", required=True),
        Setting("sendGridTemplateId", "string", "SendGrid template id", required=True),
        Setting("sendGridUnsubscribeGroupId", "string", "SendGrid unsubscribe group id",
                "SendGrid group id obtained from their dashboard", required=True, int_id=True),
        Setting("useWebhook", "bool", "Use a webhook", "Enable webhook", required=True, default=False),
        Setting("webhookURL", "string", "Webhook URL"),
        Setting("useWebhookBasicAuth", "bool", "Webhook Basic Auth", "Enable Basic Authentication", required=True,
                default=False),
        Setting("webhookUsername", "string", "Webhook username", "Basic Authentication username"),
        Setting("webhookPassword", "string", "Webhook password", "Basic Authentication password (secret)",
                secret="EMAIL_WEBHOOK_PASSWORD"),
        Setting("sendEmailReplies", "bool", "Email replies", "Let users reply to a notification by email",
                required=True, default=False),
        Setting("senderEmailForReplies", "string", "Sender email for replies"),
    ), requirements=(
        Requirement("useWebhook", (True,), ("webhookURL",), "notifications go to a webhook"),
        Requirement("useWebhookBasicAuth", (True,), ("webhookUsername", "webhookPassword"),
                    "the webhook uses Basic Auth"),
        Requirement("sendEmailReplies", (True,), ("senderEmailForReplies",), "email replies are on"),
    ), note="the OpenAPI lists webhookURL, webhookUsername, webhookPassword and senderEmailForReplies as required; "
            "they are required here only when their switch is on (sending empty values for a webhook nobody uses "
            "would invent them); sendEmailReplies and senderEmailForReplies are not described there, their types "
            "are the email-replies extension's (facts §3.3)"),
    ExtensionSpec("e2ee", (
        Setting("virgilAppID", "string", "Virgil app id", "Virgil App Id obtained from their dashboard",
                required=True),
        Setting("virgilAppKeyID", "string", "Virgil app key id", "Virgil App Key Id obtained from their dashboard",
                required=True),
        Setting("virgilAppKey", "string", "Virgil app key", "Virgil App Key (secret)", required=True,
                secret="VIRGIL_APP_KEY"),
    )),
    ExtensionSpec("stickers", (
        Setting("defaultMasterStickersData", "objects", "Default stickers", "The service's sticker sets: turn each "
                "on or off", default=(), open=True, fields=(
                    Setting("id", "string", "Id", required=True, int_id=True),
                    Setting("stickerName", "string", "Name"),
                    Setting("stickerUrl", "string", "URL"),
                    Setting("stickerSetId", "string", "Set id", int_id=True),
                    Setting("stickerSetName", "string", "Set name"),
                    Setting("enableFlag", "bool", "On", default=True),
                )),
        Setting("customStickersData", "objects", "Custom stickers", "Your own stickers", default=(), open=True,
                reported_as="customMasterStickersData", fields=(
                    Setting("id", "string", "Id", "Left empty for a new sticker: the vendor's example sends \"\"",
                            int_id=True),
                    Setting("stickerName", "string", "Name", required=True),
                    Setting("stickerUrl", "string", "URL", required=True),
                    Setting("stickerSetId", "string", "Set id", int_id=True),
                    Setting("stickerSetName", "string", "Set name"),
                    Setting("enableFlag", "bool", "On", default=True),
                )),
    ), store="PUT", note="no POST; the request's `required` list is data-masking's (a copy in the OpenAPI), the "
                         "fields are the stickers ones; GET reports custom stickers as customMasterStickersData"),
    ExtensionSpec("report-user", _report("REPORT_USER"), requirements=(_WEBHOOK_NEEDS_URL,)),
    ExtensionSpec("report-message", _report("REPORT_MESSAGE"), requirements=(_WEBHOOK_NEEDS_URL,)),
    ExtensionSpec("gifs-giphy", (
        Setting("giphyApiKey", "string", "Giphy API key", "Giphy API key obtained from their dashboard (secret)",
                required=True, secret="GIPHY_API_KEY"),
    )),
    ExtensionSpec("gifs-tenor", (
        Setting("tenorApiKey", "string", "Tenor API key", "Tenor API key (secret)", required=True,
                secret="TENOR_API_KEY"),
    )),
    ExtensionSpec("message-shortcuts", (
        Setting("shortcuts", "mapping", "Shortcuts", "Shortcut -> the text it expands to (\"!ty\": \"Thank you\")",
                required=True, default=()),
    )),
    ExtensionSpec("sms-notification", (
        Setting("fromMobileNo", "string", "Sender number", "Number SMS notifications are sent from (e.g. +12345678)",
                required=True, default="+12345678"),
        Setting("messageDelay", "number", "Seconds unread before an SMS", "Send an SMS if a message has not been "
                "read after this many seconds (default 60)", required=True, default=60, minimum=0, unit="seconds"),
        Setting("twilioAccountSid", "string", "Twilio account SID", "Twilio account SID (from the Twilio console)",
                required=True),
        Setting("twilioAuthToken", "string", "Twilio auth token", "Twilio auth token (secret): write ${ENV_VAR} in "
                "a draft", required=True, secret="TWILIO_AUTH_TOKEN"),
        Setting("websiteURL", "string", "Website URL", "A website URL included in the notification", required=True,
                default="www.somewebsite.com"),
    ), reply="body", note="the legacy SMS extension: a draft keeps it under its own `sms` key"),
    ExtensionSpec("email-replies", (
        Setting("sendEmailReplies", "bool", "Email replies", "Let users reply to a notification by email",
                required=True, default=False),
        Setting("senderEmailForReplies", "string", "Sender email for replies"),
    )),
    ExtensionSpec("url-shortener-bitly", (
        Setting("bitlyAccessToken", "string", "Bitly access token", "Bitly access token (secret)", required=True,
                secret="BITLY_ACCESS_TOKEN"),
        Setting("groupGUID", "string", "Bitly group GUID", required=True),
    )),
    ExtensionSpec("url-shortener-tinyurl", (
        Setting("tinyUrlAPIToken", "string", "TinyURL API token", "TinyURL API token (secret)", required=True,
                secret="TINYURL_API_TOKEN"),
        Setting("tinyUrlDomain", "string", "TinyURL domain", required=True, default="tiny.one"),
    )),
    ExtensionSpec("chatwoot", (
        Setting("chatwootAccessToken", "string", "Chatwoot access token", "Chatwoot access token (secret)",
                required=True, secret="CHATWOOT_ACCESS_TOKEN"),
        Setting("chatwootAccountId", "string", "Chatwoot account id", required=True, int_id=True),
        Setting("chatwootInboxId", "string", "Chatwoot inbox id", required=True, int_id=True),
        Setting("customerSupportUid", "string", "Support agent's uid", "The user who answers for support",
                required=True),
    )),
    ExtensionSpec("rich-media", (
        Setting("iframelyApiKey", "string", "Iframely API key", "Iframely API key (secret)", required=True,
                secret="IFRAMELY_API_KEY"),
    )),
    ExtensionSpec("stickers-stipop", (
        Setting("stipopApiKey", "string", "Stipop API key", "Stipop API key (secret)", required=True,
                secret="STIPOP_API_KEY"),
        Setting("stipopAppId", "string", "Stipop app id", required=True),
    )),
    ExtensionSpec("broadcast", (
        Setting("apiVideoKey", "string", "api.video key", "api.video API key (secret)", required=True,
                secret="API_VIDEO_KEY"),
        Setting("recordVideo", "bool", "Record the broadcast", required=True, default=False),
    )),
    ExtensionSpec("voice-transcription", (
        Setting("revaiAPIKey", "string", "Rev.ai API key", "Rev.ai API key (secret)", required=True,
                secret="REVAI_API_KEY"),
    )),
    ExtensionSpec("sentiment-analysis", (
        Setting("dropMessage", "bool", "Drop the message", "Drop a message with a negative sentiment",
                required=True, default=False),
    )),
    ExtensionSpec("xss-filter", (
        Setting("dropMessage", "bool", "Drop the message", "Drop a message with a script instead of cleaning it",
                required=True, default=False),
    )),
    ExtensionSpec("image-moderation", (
        Setting("dropMessage", "bool", "Drop the message", "Drop an image the moderation flags", required=True,
                default=False),
    )),
    ExtensionSpec("intercom", (), documented=False),
    ExtensionSpec("human-moderation", (), documented=False),
    ExtensionSpec("virus-malware-scanner", (), documented=False),
)
BY_ID: Final[dict[str, ExtensionSpec]] = {spec.id: spec for spec in EXTENSIONS}
#: the extensions whose settings a draft's ``extension_settings`` holds: documented, and not SMS (its own ``sms``)
DRAFT_EXTENSIONS: Final[tuple[str, ...]] = tuple(
    spec.id for spec in EXTENSIONS if spec.documented and spec.id != "sms-notification"
)


def sample_value(setting: Setting) -> Any:
    """What a new form or the sample draft writes for ``setting``: its default, else an empty value of its type
    (a fresh list or dict each time, so a caller may fill it in)."""
    if setting.default == () or setting.default is None:
        empty = _EMPTY[setting.type]
        return empty() if callable(empty) else empty
    if isinstance(setting.default, tuple):
        return [dict(item) if isinstance(item, dict) else item for item in setting.default]
    return setting.default


_EMPTY: Final[dict[str, Any]] = {
    "bool": False, "integer": 0, "number": 0, "string": "", "strings": list, "mapping": dict, "object": dict,
    "objects": list,
}
