"""/openapi.json: FastAPI's generated document plus the request-body schemas of the draft's models.

Bodies are read by hand (see :mod:`tenantdeck.sandbox.bodies`), so FastAPI does not know their models; routes
reference ``#/components/schemas/<Model>`` in ``openapi_extra`` and this module puts those schemas (and their
nested definitions) into ``components``. The key/secret headers are declared as API-key security schemes.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from tenantdeck.models.extension_settings import request_model
from tenantdeck.sandbox.ext_settings import APP_ID_PROPERTY, served
from tenantdeck.sandbox.validation import request_schemas

REF_TEMPLATE = "#/components/schemas/{model}"


def install_openapi(app: FastAPI) -> None:
    """Replace ``app.openapi`` with a cached generator that adds model schemas and security schemes."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        doc = get_openapi(
            title=app.title,
            version=app.version,
            description=app.description,
            routes=app.routes,
            servers=app.servers or None,
        )
        components = doc.setdefault("components", {})
        schemas = components.setdefault("schemas", {})
        for name, model in request_schemas().items():
            schema = model.model_json_schema(ref_template=REF_TEMPLATE, mode="validation")
            for def_name, definition in schema.pop("$defs", {}).items():
                schemas.setdefault(def_name, definition)
            schemas[name] = schema
        for spec in served():  # settings.appId is accepted (and ignored) in every extension-settings body
            schemas[request_model(spec.id).__name__].setdefault("properties", {})["appId"] = dict(APP_ID_PROPERTY)
        components["securitySchemes"] = {
            "key": {"type": "apiKey", "in": "header", "name": "key", "description": "Account key"},
            "secret": {"type": "apiKey", "in": "header", "name": "secret", "description": "Account secret"},
        }
        doc["security"] = [{"key": [], "secret": []}]
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]
