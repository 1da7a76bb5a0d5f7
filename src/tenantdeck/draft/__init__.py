"""Draft I/O: YAML text with positions -> validated ``Draft`` and located problems; atomic, comment-preserving save.

Loading imports only PyYAML (libyaml) and pydantic; saving needs ruamel.yaml, so the save functions are imported on
first use and ``tenantdeck validate`` never pays for ruamel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tenantdeck.draft.load import DraftDocument, LoadResult, load_draft, load_text

if TYPE_CHECKING:
    from tenantdeck.draft.save import dump_draft_text, save_draft

__all__ = ["DraftDocument", "LoadResult", "dump_draft_text", "load_draft", "load_text", "save_draft"]


def __getattr__(name: str) -> Any:
    if name in ("save_draft", "dump_draft_text"):
        from tenantdeck.draft import save

        return getattr(save, name)
    raise AttributeError(name)
