"""Textual's watcher lists let go of widgets that are gone.

``DOMNode.watch`` and ``data_bind`` add ``(widget, callback)`` to a list on the watched object, and Textual drops a
widget from it only when that attribute next changes (``Reactive._check_watchers``). An attribute that never changes
(a footer's ``compact``, an app's ``title`` between edits) kept every widget ever added to its list, and each widget
its styles, caches and parent links: a footer recomposed on every focus change kept its old keys (15 for each F6
opened and closed), and each closed screen's header stayed in the app's title watchers.
"""

from __future__ import annotations

from typing import Any


def forget_gone(watched: Any, leaving: object | None = None) -> None:
    """Drop from ``watched``'s watcher lists every widget no longer in the DOM, and ``leaving`` (a widget being
    unmounted, still attached while its ``on_unmount`` runs)."""
    for entries in getattr(watched, "__watchers", {}).values():
        entries[:] = [(node, callback) for node, callback in entries
                      if node is not leaving and (node is watched or getattr(node, "is_attached", True))]
