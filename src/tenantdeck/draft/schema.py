"""The JSON Schema of the draft format, generated from the models (never written by hand).

Editors with yaml-language-server (VS Code's YAML extension, Neovim, Helix, JetBrains) use it for completion and
inline errors; ``init`` writes a copy beside the draft and points the draft at it with a relative modeline. The
committed copy ``src/tenantdeck/schema/draft.schema.json`` is regenerated with ``make schema`` and a test fails
when it drifts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

SCHEMA_ID = "urn:tenantdeck:draft-format-1"
SCHEMA_TITLE = "tenantdeck draft (format 1)"
SCHEMA_FILE = Path(__file__).resolve().parent.parent / "schema" / "draft.schema.json"
#: where ``init`` writes a copy of the schema, relative to the draft's directory (inside the workspace folder)
LOCAL_SCHEMA = Path(".tenantdeck") / "draft.schema.json"


def build_schema() -> dict[str, Any]:
    """The schema as a dict, with an ``$id`` and a title.

    Declared as draft-07: yaml-language-server (the engine behind most editors' YAML support) validates with
    draft-07 and flags 2020-12 schemas as "not yet fully supported". Pydantic's output uses only keywords draft-07
    knows (``$ref`` into ``$defs`` is a plain JSON pointer, ``const``, ``enum``, ``anyOf``), so nothing is lost.
    """
    from tenantdeck.models import Draft

    body = Draft.model_json_schema(mode="validation")
    schema: dict[str, Any] = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": SCHEMA_TITLE,
    }
    schema.update({k: v for k, v in body.items() if k != "title"})
    return schema


def schema_text() -> str:
    """The schema exactly as committed: two-space indent, stable order, trailing newline."""
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def schema_reference(draft_path: str | os.PathLike[str] | None = None) -> str:
    """What to put after ``$schema=`` in a draft: the schema copy beside it, as a path relative to the draft.

    yaml-language-server resolves a modeline path that is neither a URL nor absolute against the directory of
    the YAML file (``path.resolve(dirname(document), ref)``), so this works wherever the folder is cloned or
    copied, unlike the absolute ``file://`` URL of one machine's installed package. The same for every draft.
    """
    return LOCAL_SCHEMA.as_posix()


def write_local_schema(draft_path: str | os.PathLike[str]) -> Path:
    """Write the schema to ``.tenantdeck/draft.schema.json`` beside the draft (atomically); returns its path.

    The copy travels with the draft (``init`` keeps it out of the ignored workspace files); after an upgrade of
    tenantdeck, ``tenantdeck schema > .tenantdeck/draft.schema.json`` refreshes it.
    """
    from tenantdeck.atomic import atomic_write_text

    target = Path(draft_path).parent / LOCAL_SCHEMA
    atomic_write_text(target, schema_text(), make_parents=True, beside=Path(draft_path).parent)
    return target
