"""The rows of an apps list, read from plain data before anything is validated: what a UI paints first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tenantdeck.draft import yamlsource


@dataclass(frozen=True, slots=True)
class AppRow:
    """What a list of apps shows before anything is validated (counts of what is a list; 0 otherwise)."""

    index: int
    name: Any
    region: Any
    id: Any
    widgets: int = 0
    webhooks: int = 0


def row_of(index: int, app: Any) -> AppRow:
    """The row of one app as parsed; an app that is not a mapping (a half-typed draft) still has a row."""
    if not isinstance(app, dict):
        return AppRow(index, None, None, None)
    widgets, hooks = app.get("widgets"), app.get("webhooks")
    return AppRow(index, app.get("name"), app.get("region"), app.get("id"),
                  len(widgets) if isinstance(widgets, list) else 0, len(hooks) if isinstance(hooks, list) else 0)


def peek_app_rows(text: str, count: int) -> list[AppRow] | None:
    """The :meth:`DraftSession.app_rows` of the first ``count`` apps of ``text``, read from its start only, for a
    list to show while a big draft is read; None when the text does not read that far as a draft (see
    :func:`~tenantdeck.draft.yamlsource.peek_apps`)."""
    apps = yamlsource.peek_apps(text, count)
    return None if apps is None else [row_of(i, a) for i, a in enumerate(apps)]
