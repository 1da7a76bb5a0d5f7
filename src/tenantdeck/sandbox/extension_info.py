"""Display metadata for the extension list (names, tag lines, categories).

The ids themselves come from :data:`tenantdeck.models.catalog.EXTENSION_IDS`; this module only dresses them in the
fields a real ``GET /apps/{appId}/extensions`` item carries (facts §3.2), so clients parse a realistic shape.
"""

from __future__ import annotations

from typing import Any

from tenantdeck.sandbox.records import humanise

#: id -> (display name, category). Ids not listed get a name derived from the id and the category "Extensions".
_NAMES: dict[str, tuple[str, str]] = {
    "broadcast": ("Broadcast", "User Engagement"),
    "chatwoot": ("Chatwoot", "Customer Support"),
    "data-masking": ("Data Masking Filter", "Security"),
    "document": ("Collaborative Document", "Collaboration"),
    "e2ee": ("End-to-end Encryption", "Security"),
    "email-notification": ("Email Notification", "Notifications"),
    "email-replies": ("Email Replies", "Notifications"),
    "emojis": ("Emojis", "User Experience"),
    "gifs-gfycat": ("Gfycat", "User Experience"),
    "gifs-giphy": ("Giphy", "User Experience"),
    "gifs-tenor": ("Tenor", "User Experience"),
    "human-moderation": ("Human Moderation", "Moderation"),
    "image-moderation": ("Image Moderation", "Moderation"),
    "intercom": ("Intercom", "Customer Support"),
    "link-preview": ("Link Preview", "User Experience"),
    "mentions": ("Mentions", "User Engagement"),
    "message-shortcuts": ("Message Shortcuts", "User Experience"),
    "message-translation": ("Message Translation", "User Experience"),
    "pin-message": ("Pin Message", "User Engagement"),
    "polls": ("Polls", "User Engagement"),
    "profanity-filter": ("Profanity Filter", "Moderation"),
    "push-notification": ("Push Notification", "Notifications"),
    "reactions": ("Reactions", "User Engagement"),
    "report-message": ("Report Message", "Moderation"),
    "report-user": ("Report User", "Moderation"),
    "rich-media": ("Rich Media Preview", "User Experience"),
    "save-message": ("Save Message", "User Experience"),
    "sentiment-analysis": ("Sentiment Analysis", "Moderation"),
    "smart-reply": ("Smart Reply", "User Experience"),
    "sms-notification": ("SMS Notification", "Notifications"),
    "stickers": ("Stickers", "User Experience"),
    "stickers-stipop": ("Stipop", "User Experience"),
    "thumbnail-generation": ("Thumbnail Generation", "User Experience"),
    "url-shortener-bitly": ("Bitly", "User Experience"),
    "url-shortener-tinyurl": ("TinyURL", "User Experience"),
    "virus-malware-scanner": ("Virus & Malware Scanner", "Security"),
    "voice-transcription": ("Voice Transcription", "User Experience"),
    "whiteboard": ("Collaborative Whiteboard", "Collaboration"),
    "widget": ("Chat Widget", "Integrations"),
    "xss-filter": ("XSS Filter", "Security"),
}

#: A fixed timestamp: catalogue entries are published once, not per app.
_PUBLISHED_AT = 1_577_836_800


def extension_item(ext_id: str, enabled: bool) -> dict[str, Any]:
    """One list item. ``enabled`` is a **sandbox extra**: the real API has no per-app flag in this list."""
    name, category = _NAMES.get(ext_id, (humanise(ext_id), "Extensions"))
    return {
        "id": ext_id,
        "name": name,
        "tagLine": f"{name} for your app",
        "description": f"The {name} extension (sandbox catalogue entry).",
        "author": "Sandbox",
        "email": "extensions@sandbox.invalid",
        "webhookURL": "",
        "accessToAppData": False,
        "adminURL": "",
        "websiteURL": "",
        "isActive": True,
        "isPrivate": False,
        "isInvisible": False,
        "isThirdParty": False,
        "createdAt": _PUBLISHED_AT,
        "hooks": {"data": []},
        "categories": {"data": [category]},
        "enabled": enabled,
    }
