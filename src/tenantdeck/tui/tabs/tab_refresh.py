"""Tabs that repaint only when seen: an edit fans out to every tab of the App screen, and repainting the four the
user cannot see cost more than the edit itself (about half of a toggle's key-to-frame time at 1,000 apps,
bench/tui_latency.py). A hidden tab notes that it is stale and catches up when it is activated."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.widgets import TabbedContent, TabPane

if TYPE_CHECKING:
    from textual.widget import Widget

    _Base = Widget
else:
    _Base = object


class RefreshWhenShown(_Base):
    """Mixin for the content of a tab: call :meth:`refresh_or_defer` on a change; define :meth:`refresh_content`.

    A plain class, not a Widget: ahead of the tab's container in the bases, a Widget would reset what that
    container sets on its class (``can_focus``, CSS type names)."""

    _stale = False

    def refresh_content(self) -> None:
        """Repaint everything from the draft (what a deferred refresh runs)."""
        raise NotImplementedError

    def tab_shown(self) -> bool:
        """On screen, or in the pane its tabs have selected (which may not be laid out yet: a change arriving
        between the switch and the first paint must not wait for the next switch). Outside tabs: shown."""
        if self.is_on_screen:
            return True
        pane = next((a for a in self.ancestors if isinstance(a, TabPane)), None)
        tabs = next((a for a in self.ancestors if isinstance(a, TabbedContent)), None)
        return pane is None or tabs is None or tabs.active == pane.id

    def refresh_or_defer(self, refresh: Callable[[], None] | None = None) -> None:
        """Run ``refresh`` (default :meth:`refresh_content`) now if the tab is shown, else at its activation."""
        if self.tab_shown():
            (refresh or self.refresh_content)()
        else:
            self._stale = True

    def refresh_if_stale(self) -> None:
        """Catch up with the changes made while the tab was hidden (the App screen calls this on activation)."""
        if self._stale:
            self._stale = False
            self.refresh_content()

    def on_show(self) -> None:
        self.refresh_if_stale()
