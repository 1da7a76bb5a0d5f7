"""How the sandbox serves every extension's ``/v1/settings``: which methods, which operationIds, which answers.

Everything is read off the catalog (:mod:`tenantdeck.models.extension_catalog`): each documented
:class:`~tenantdeck.models.extension_catalog.ExtensionSpec` gets GET, PUT and DELETE, and POST when its ``store``
method is POST; its request model validates the bodies; ``reply="body"`` (SMS) answers ``data.body.success``;
``removals`` (data-masking) merge the stored list with the sent one; a setting's ``reported_as`` renames it in the
GET (stickers). A new catalog entry is served without an edit here.

What the catalog does not say, because it is about the vendor's answers rather than the settings, is kept below as
data taken from the vendor's OpenAPI examples (``management-apis-extensions.json``), each default being the pattern
of facts §3.3 that most examples follow:

* a store or update answers the stored settings, ``data.body.data.settings{...}`` (no ``appId``), except where the
  OpenAPI's example answers only ``data.body.data.success`` (:data:`SUCCESS_ONLY_WRITES`);
* a delete answers ``data.body.data.success``, except Giphy's ``data.body.data.settings.success``
  (:data:`DELETE_UNDER_SETTINGS`, facts §3.3 and the OpenAPI example agree);
* operationIds are ``store-settings-<id>``, ``update-settings-<id>``, ``get-settings-<id>``,
  ``delete-settings-<id>``, except the three the OpenAPI spells otherwise (:data:`VENDOR_OPERATION_IDS`).

``docs/real-service.md`` (§8) lists these choices and where the OpenAPI and the facts file disagree.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from tenantdeck.models.extension_catalog import EXTENSIONS, ExtensionSpec
from tenantdeck.sandbox.validation import ExtensionWrite, check_settings_size

Method = Literal["POST", "PUT", "GET", "DELETE"]

#: Extensions whose store/update answer is ``body.data.success`` in the vendor's OpenAPI examples (the rest echo
#: the settings, as facts §3.3 says and the Giphy, report, e2ee, email and push examples show).
SUCCESS_ONLY_WRITES: Final = frozenset({"profanity-filter", "data-masking", "stickers"})
#: Extensions whose delete answer nests ``success`` under ``settings`` (the Giphy example; facts §3.3).
DELETE_UNDER_SETTINGS: Final = frozenset({"gifs-giphy"})
#: operationIds the vendor's OpenAPI spells other than ``<verb>-settings-<id>``.
VENDOR_OPERATION_IDS: Final[dict[tuple[str, Method], str]] = {
    ("gifs-giphy", "DELETE"): "delete-settings-for-giphy-gifs-giphy",
    ("data-masking", "PUT"): "store-or-update-settings-data-masking",
    ("profanity-filter", "POST"): "adds-settings-profanity-filter",
}
_VERBS: Final[dict[Method, str]] = {
    "POST": "store-settings", "PUT": "update-settings", "GET": "get-settings", "DELETE": "delete-settings",
}
#: What the published request schemas add inside ``settings``: the GET reports ``appId``, a client may echo it,
#: and the vendor's own push-notification request example sends one. Accepted as a string, ignored.
APP_ID_PROPERTY: Final = {"type": "string", "description": "Ignored: the path names the app (the GET reports it)"}


def served() -> tuple[ExtensionSpec, ...]:
    """The extensions whose ``/v1/settings`` the sandbox serves: every documented one (a spec the vendor publishes
    no schema for has nothing to validate against)."""
    return tuple(spec for spec in EXTENSIONS if spec.documented)


def methods(spec: ExtensionSpec) -> tuple[Method, ...]:
    """POST only where it is the store method (stickers and data-masking store with PUT and have no POST)."""
    return ("POST", "PUT", "GET", "DELETE") if spec.store == "POST" else ("PUT", "GET", "DELETE")


def operation_id(spec: ExtensionSpec, method: Method) -> str:
    return VENDOR_OPERATION_IDS.get((spec.id, method), f"{_VERBS[method]}-{spec.id}")


def reported(spec: ExtensionSpec, settings: dict[str, Any]) -> dict[str, Any]:
    """The stored settings as the service reports them: a setting with ``reported_as`` under that name (stickers'
    ``customStickersData`` is reported as ``customMasterStickersData``), order kept."""
    names = {s.key: s.reported_as for s in spec.settings if s.reported_as}
    return {names.get(key, key): value for key, value in settings.items()}


def write_reply(spec: ExtensionSpec, stored: dict[str, Any]) -> dict[str, Any]:
    """The ``body`` of a store/update answer."""
    if spec.reply == "body":
        return {"success": True}
    if spec.id in SUCCESS_ONLY_WRITES:
        return {"data": {"success": True}}
    return {"data": {"settings": reported(spec, stored)}}


def get_reply(spec: ExtensionSpec, stored: dict[str, Any], app_id: str) -> dict[str, Any]:
    """The ``body`` of a GET answer: the settings as reported, plus ``appId``."""
    return {"data": {"settings": {**reported(spec, stored), "appId": app_id}}}


def delete_reply(spec: ExtensionSpec) -> dict[str, Any]:
    """The ``body`` of a delete answer."""
    if spec.reply == "body":
        return {"success": True}
    if spec.id in DELETE_UNDER_SETTINGS:
        return {"data": {"settings": {"success": True}}}
    return {"data": {"success": True}}


def merged(spec: ExtensionSpec, write: ExtensionWrite, stored: dict[str, Any] | None) -> dict[str, Any]:
    """The settings a write leaves stored: the sent ones, except that a list removed by id (data-masking's custom
    masks) keeps the stored items that were neither removed nor sent again (same id: the sent one replaces it).

    A removal id that is not stored is ignored, so a retried request lands the same. The result is bounded
    (:func:`~tenantdeck.sandbox.validation.check_settings_size`): the union could otherwise grow without end.
    """
    doc = dict(write.settings)
    for list_key, _ in spec.removals:
        removed = set(write.removals.get(list_key, ()))
        sent = list(doc.get(list_key) or [])
        sent_ids = {item.get("id") for item in sent if isinstance(item, dict)}
        kept = [
            item for item in (stored or {}).get(list_key) or []
            if not (isinstance(item, dict) and (item.get("id") in removed or item.get("id") in sent_ids))
        ]  # fmt: skip
        doc[list_key] = kept + sent
    check_settings_size(doc)
    return doc
