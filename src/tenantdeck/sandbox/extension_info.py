"""Display metadata for the extension list (names, tag lines, categories).

The ids, names and categories come from :data:`tenantdeck.models.extension_catalog.EXTENSION_LIST` (the one table
of extensions); this module only dresses them in the fields a real ``GET /apps/{appId}/extensions`` item carries
(facts §3.2), so clients parse a realistic shape.
"""

from __future__ import annotations

from typing import Any

from tenantdeck.models.extension_catalog import EXTENSION_INFO
from tenantdeck.sandbox.records import humanise

#: A fixed timestamp: catalogue entries are published once, not per app.
_PUBLISHED_AT = 1_577_836_800


def extension_item(ext_id: str, enabled: bool) -> dict[str, Any]:
    """One list item. ``enabled`` is a **sandbox extra**: the real API has no per-app flag in this list."""
    info = EXTENSION_INFO.get(ext_id)
    name, category = (info.name, info.category) if info is not None else (humanise(ext_id), "Extensions")
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
