"""One app, in tabs: its widget's style, sidebar and main toggles, a preview, extensions, SMS and webhooks.

One App screen is kept for the session and shown again for the next app opened (:meth:`AppScreen.for_app`): composing
the screen, its tab bar and first tab, and styling them was most of the time from Enter to the first frame (issue
36: 140-190 ms). Shown again, it is re-bound to the new app (:meth:`AppScreen.rebind`): the widget tabs (Style,
Sidebar, Main) repaint every row from the draft, as composed for that app; the other tabs are composed again for it
when shown (or ahead). Nothing of the app shown before stays: text typed there is written to that app first, the
focus goes back to the tab bar, each widget tab to the top and to the app's first widget.

Each tab is its own widget module. They all read and edit the draft through the app's
:class:`~tenantdeck.tui.editor.Editor` at ``apps[<index>]``; a widget tab works on the widget chosen here
(``w`` cycles when the app has several), announced to the tabs with :class:`~tenantdeck.tui.messages.WidgetSwitched`.
"""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane, Tabs
from textual.widgets._tabbed_content import ContentTab, ContentTabs

from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener, WidgetSwitched
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.header import TitleHeader

if TYPE_CHECKING:
    from textual.app import App
    from textual.binding import ActiveBinding

    from tenantdeck.tui.tabs.widget_fields import WidgetTab

#: (tab id, title, module, class): the order of the tabs, and the digit that jumps to each
TABS = (
    ("style", "Style", "tenantdeck.tui.tabs.widget_style", "StyleTab"),
    ("sidebar", "Sidebar", "tenantdeck.tui.tabs.widget_sidebar", "SidebarTab"),
    ("main", "Main", "tenantdeck.tui.tabs.widget_main", "MainTab"),
    ("preview", "Preview", "tenantdeck.tui.tabs.widget_preview", "PreviewTab"),
    ("extensions", "Extensions", "tenantdeck.tui.tabs.extensions_tab", "ExtensionsTab"),
    ("sms", "SMS", "tenantdeck.tui.tabs.sms_tab", "SmsTab"),
    ("webhooks", "Webhooks", "tenantdeck.tui.tabs.webhooks_tab", "WebhooksTab"),
    ("team", "Team", "tenantdeck.tui.tabs.team_tab", "TeamTab"),
    ("settings", "Settings", "tenantdeck.tui.tabs.settings_tab", "SettingsTab"),
)

TAB_IDS = tuple(tab[0] for tab in TABS)

#: the name the App screen kept for the session is installed under (:meth:`AppScreen.for_app`)
KEPT = "app-screen"


class AppTabs(TabbedContent):
    """TabbedContent that ignores a late "a widget in this pane got focus" message.

    TabbedContent activates the pane that receives focus, through a message. When the widgets are busy (an edit
    fans out to every field of the Main tab) that message can arrive after the user has already switched to another
    tab, and it switched them back: the preview then missed the edit made before it was shown, about one run in
    three of its test. Only a pane that still holds the focus is activated."""

    def _on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        focused = self.screen.focused
        if focused is None or event.tab_pane not in focused.ancestors_with_self:
            event.stop()
            event.prevent_default()

    async def _on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        """A tab chosen on the tab bar itself (arrows, a click): its pane is composed first, if it was not yet."""
        screen = self.screen
        if isinstance(screen, AppScreen) and event.tab.id:
            await screen.compose_tab(ContentTab.sans_prefix(event.tab.id))
        super()._on_tabs_tab_activated(event)

    def watch_active(self, active: str) -> None:
        """Move the tab bar's underline in the frame that shows the pane: Textual moves it after the next refresh,
        so the content changed a frame (under load, a second) before the underline did (issue 36)."""
        from textual.widgets._tabs import Underline

        bar = self.query_one(ContentTabs)
        try:
            tab = bar.query_one(f"#tabs-list > #{ContentTab.add_prefix(active)}")
        except NoMatches:
            return
        if tab.virtual_region.width:  # laid out (the first activation, before the first layout, is Textual's)
            start, end = tab.virtual_region.shrink(tab.styles.gutter).column_span
            underline = bar.query_one(Underline)
            underline.highlight_start, underline.highlight_end = start, end

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """Hidden tabs skip repainting (:mod:`tenantdeck.tui.tabs.tab_refresh`): catch up before the pane is drawn,
        rather than on its Show event, which comes after a frame of the old values."""
        self.catch_up(event.pane)

    @staticmethod
    def catch_up(pane: TabPane) -> None:
        """Repaint what in ``pane`` skipped repainting while hidden (a tab about to be shown)."""
        from tenantdeck.tui.tabs.tab_refresh import RefreshWhenShown

        for widget in pane.walk_children():
            if isinstance(widget, RefreshWhenShown):
                widget.refresh_if_stale()


class AppScreen(UsesEditor, DraftListener, Screen[None]):
    """The digits jump to a tab (one per entry of :data:`TABS`); ``w`` shows the app's next widget; Escape goes
    back to the apps."""

    HELP = f"""\
## App

The tabs edit one app of the draft; every change is validated at once and shown where it is (F8 lists all).

- `1`-`{len(TABS)}` or `[` / `]`: switch tabs ({", ".join(f"{n} {tab[1]}" for n, tab in enumerate(TABS, 1))})
- `w`: the app's next widget, when it has more than one (the widget tabs edit one widget at a time)
- `v`: this widget live in a browser (a loopback URL with a token, copied; tenantdeck preview in docs)
- `Escape`: back to the apps list (in a field you have typed in, the first `Escape` takes the typing back)
"""
    BINDINGS = [
        Binding("escape", "back", "Apps", id="app.back"),
        Binding("w", "next_widget", "Widget", id="app.next_widget"),
        Binding("a", "add_widget", "Add widget", id="app.add_widget",
                tooltip="Add a widget to this app (its widget tabs say to when it has none)"),
        Binding("v", "browser_preview", "Browser", show=False, id="app.browser_preview"),
        Binding("left_square_bracket", "tab(-1)", "Prev tab", show=False, id="app.prev_tab"),
        Binding("right_square_bracket", "tab(1)", "Next tab", show=False, id="app.next_tab"),
        *[Binding(str(i), f"show_tab('{tab[0]}')", tab[1], show=False, id=f"app.tab_{tab[0]}")
          for i, tab in enumerate(TABS, 1)],
    ]

    #: seconds nobody has typed before a tab not shown yet is composed, hidden (:meth:`_compose_ahead`); None: each
    #: tab is composed when first shown (the editor's tests, so that what a test sees does not depend on its pace)
    PRECOMPOSE_AFTER: ClassVar[float | None] = 0.05

    def __init__(self, app_index: int, tab: str = TABS[0][0]) -> None:
        super().__init__()
        self.app_index = app_index
        self.widget_index = 0
        self.first_tab = tab if tab in TAB_IDS else TABS[0][0]
        self._gone = False
        self._ahead_planned = False
        self._composing = asyncio.Lock()

    @classmethod
    def for_app(cls, app: App[Any], index: int, tab: str | None = None) -> AppScreen:
        """The App screen to push for app ``index`` on ``tab``: the one kept for the session, re-bound to that app,
        when it is off every screen stack and its tab ``tab`` can be re-bound (:meth:`can_rebind`); else a new
        one, kept if none is yet. Opening an app then costs repainting its rows, not composing and styling the
        screen (bench/tui_navigation.py: "Enter: open an app")."""
        from tenantdeck.tui.screens import kept as kept_screens

        first = tab if tab in TAB_IDS else TABS[0][0]
        kept = kept_screens.free(app, KEPT, AppScreen)
        if kept is not None and kept.can_rebind(first):
            kept.rebind(index, first)
            return kept
        return kept_screens.keep_first(app, KEPT, cls(index, first))

    def can_rebind(self, tab: str) -> bool:
        """Whether :meth:`rebind` can show ``tab`` at once: its content is composed and can show another app."""
        if tab not in TAB_IDS:
            return False
        content = self._content(tab)
        return content is not None and callable(getattr(content, "rebind", None))

    def _content(self, tab: str) -> Widget | None:
        try:
            pane = self.query_one(f"#{tab}", TabPane)
        except NoMatches:
            return None
        return next(iter(pane.children), None)

    def _bound(self, content: Widget | None) -> bool:
        """``content`` (a tab's) shows this screen's app: another app's is composed again when its tab is shown."""
        return content is not None and getattr(content, "app_index", self.app_index) == self.app_index

    def rebind(self, index: int, tab: str = TABS[0][0]) -> None:
        """Show app ``index`` on ``tab`` (one :meth:`can_rebind` says yes to), as a screen composed for it would.

        In this order: text typed in the widget tabs is written to the app shown so far (what leaving the field
        does), and the focus goes to the tab bar (as when an app opens), so no late "left the field" writes to the
        new app; then the index changes, the tab is made active, and each widget tab is re-bound (the one shown
        repaints now, the others when shown: :mod:`tenantdeck.tui.tabs.tab_refresh`). The other tabs keep the app
        shown before until :meth:`compose_tab` composes them again (when shown, or ahead)."""
        from tenantdeck.tui.tabs.widget_fields import WidgetTab

        widget_tabs = [c for t in TAB_IDS if isinstance(c := self._content(t), WidgetTab) and self._bound(c)]
        for content in widget_tabs:
            content.commit_pending()
        tabs = self.query_one(AppTabs)
        self.set_focus(tabs.query_one(Tabs), scroll_visible=False)
        self.app_index = index
        self.widget_index = 0
        self.first_tab = tab
        self._gone = False
        tabs.active = tab
        for content in widget_tabs:
            content.rebind(index)
        self._retitle()
        self._many_widgets = self.check_action("next_widget", ())
        self.refresh_bindings()
        self.query_one(KeyFooter).refresh()
        # laid out for the new app now, before anything asks where a widget is: a field the palette names is
        # scrolled into view once its place is known (tui/widgets/focus.py), and the place kept from the app shown
        # before said it was in view already (a callback "after the refresh" runs before the next layout while the
        # frames are held, as the palette holds them). The layout the first frame needs anyway, done here.
        self._refresh_layout(self.app.size)
        self._plan_compose_ahead()

    @property
    def prefix(self) -> str:
        return f"apps[{self.app_index}]"

    def compose(self) -> ComposeResult:
        """The tab bar, and the content of the first tab shown only: each other tab is composed when it is first
        shown (:meth:`compose_tab`), so opening an app builds one tab's rows, not every row of nine tabs."""
        yield TitleHeader()
        with AppTabs(id="tabs", initial=self.first_tab):
            for tab_id, title, _, _ in TABS:
                with TabPane(title, id=tab_id):
                    if tab_id == self.first_tab:
                        yield self._tab_content(tab_id)
        yield KeyFooter()

    def _tab_content(self, tab: str) -> Widget:
        _, _, module, cls = TABS[TAB_IDS.index(tab)]
        widget: Widget = getattr(importlib.import_module(module), cls)(self.app_index)
        return widget

    async def compose_tab(self, tab: str) -> None:
        """Compose tab ``tab``'s content unless it has been: every way of showing a tab comes through here first,
        so the tab bar, the footer and the tab's content change in the same frame."""
        if tab not in TAB_IDS:
            return
        async with self._composing:  # the tab bar's handler and this screen's may ask at once: one at a time
            pane = self.query_one(f"#{tab}", TabPane)
            content = self._content(tab)
            if content is not None and not self._bound(content):  # another app's, from before a rebind
                await content.remove()
            if not pane.children:
                await pane.mount(self._tab_content(tab))

    def on_mount(self) -> None:
        self._retitle()
        self._many_widgets = self.check_action("next_widget", ())
        self._plan_compose_ahead()

    def _plan_compose_ahead(self) -> None:
        """Start composing the tabs not composed (for this app) ahead, unless that is under way."""
        if self.PRECOMPOSE_AFTER is not None and not self._ahead_planned:
            self._ahead_planned = True
            self.set_timer(self.PRECOMPOSE_AFTER, self._compose_ahead)

    async def _compose_ahead(self) -> None:
        """Compose the next tab not shown yet, hidden, once nobody has typed for :attr:`PRECOMPOSE_AFTER`; then the
        one after, until every tab is. A digit then shows a tab already built: its first showing drew its first
        frame 50-120 ms after the key when it was composed then, 20-50 ms composed ahead (bench/tui_navigation.py).
        One tab a step (the largest ~40 ms), so a key typed meanwhile waits at most that; keys typed in a burst
        right after opening an app (``Enter 3``) find the tab composed when shown, as before."""
        assert self.PRECOMPOSE_AFTER is not None
        if not self.is_attached or self not in self.app.screen_stack:
            self._ahead_planned = False  # closed, or put away until re-bound (which plans again): no polling meanwhile
            return
        if self.app.screen is not self or self.host.quiet_for() < self.PRECOMPOSE_AFTER:
            self.set_timer(self.PRECOMPOSE_AFTER, self._compose_ahead)
            return
        pending = [tab for tab in TAB_IDS if not self._bound(self._content(tab))]
        if pending:
            await self.compose_tab(pending[0])
        if len(pending) > 1:
            self.set_timer(self.PRECOMPOSE_AFTER, self._compose_ahead)
        else:
            self._ahead_planned = False

    def _retitle(self) -> None:
        app = self.editor.get(self.prefix, {}) or {}
        name = app.get("name", "?") if isinstance(app, dict) else "?"
        widgets = app.get("widgets") if isinstance(app, dict) and isinstance(app.get("widgets"), list) else []
        which = ""
        if len(widgets) > 1:
            wname = widgets[self.widget_index].get("name") if isinstance(widgets[self.widget_index], dict) else None
            which = f" · widget {self.widget_index + 1}/{len(widgets)}" + (f" {wname!r}" if wname else "")
        self.sub_title = f"{name}{which}"

    def on_draft_changed(self, message: DraftChanged) -> None:
        if message.touches(self.prefix):
            if self._app_gone():
                self._leave()
                return
            self._retitle()
            many = self.check_action("next_widget", ())
            if many != getattr(self, "_many_widgets", None):  # the footer recomposes every key on a refresh
                self._many_widgets = many
                self.refresh_bindings()

    def _app_gone(self) -> bool:
        """The app this screen edits is no longer in the draft (a reload found it gone, or the file unreadable)."""
        return not isinstance(self.editor.get(self.prefix, None), dict)

    def _leave(self) -> None:
        """Back to the screen this one was opened from, saying why: its tabs would show an app that is not there
        ("— ?", "This app has no widget", `a` refused), a trial's "ghost" after a reload. Under another screen it
        leaves when it is shown again."""
        if not self.is_current:
            self._gone = True  # until shown again, or re-bound to another app
            return
        name = self.sub_title.split(" · ")[0] or f"app {self.app_index + 1}"
        broken = self.editor.unreadable()
        self.app.notify(f"{name} is no longer in the draft" + (f": {broken}" if broken else "."),
                        title="Back to the apps", severity="warning", timeout=15)
        self.app.pop_screen()

    def on_screen_resume(self) -> None:
        if self._gone and self._app_gone():
            self._gone = False
            self.call_later(self._leave)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``w`` (next widget) is listed only for an app with more than one widget: the footer has 80 columns.
        ``a`` (add a widget) only on a widget tab of an app without one, which says "Press a": wherever the focus
        is on that tab (the tab bar has it when the app opens), so the key the text names works and is listed."""
        if action == "next_widget":
            widgets = self.editor.get(f"{self.prefix}.widgets", []) or []
            return isinstance(widgets, list) and len(widgets) > 1
        if action == "add_widget":
            tab = self._widget_tab()
            return tab is not None and tab.widget() is None
        return True

    def _widget_tab(self) -> WidgetTab | None:
        """The Style, Sidebar or Main tab's content when one of those is the tab shown."""
        from tenantdeck.tui.tabs.widget_fields import WidgetTab

        try:
            active = self.query_one(TabbedContent).active
            pane = self.query_one(f"#{active}", TabPane) if active else None
        except NoMatches:
            return None
        return next((child for child in pane.children if isinstance(child, WidgetTab) and child.is_mounted),
                    None) if pane is not None else None

    def action_add_widget(self) -> None:
        tab = self._widget_tab()
        if tab is not None:
            tab.action_add_widget()

    def action_back(self) -> None:
        self.app.pop_screen()

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """Escape is listed as "Back", not "Apps", when this screen is over another than the apps list (opened from
        the policies' apps or the review, which Escape goes back to, as their help says): the footer and F1 read
        these, and said "esc Apps" there (trial F, F26)."""
        from tenantdeck.tui.screens.apps_screen import AppsScreen

        bindings = super().active_bindings
        stack = self.app.screen_stack
        under = stack[stack.index(self) - 1] if self in stack and stack.index(self) > 0 else None
        if under is None or isinstance(under, AppsScreen):
            return bindings
        return {key: active._replace(binding=replace(active.binding, description="Back"))
                if active.binding.id == "app.back" else active for key, active in bindings.items()}

    async def action_show_tab(self, tab: str, path: str | None = None) -> None:
        """Show a tab and put the focus in it, so its keys work at once (arrows on the tab bar keep moving it);
        with ``path`` (the palette, a problem), in the field of that key path.

        The tab bar takes the focus at once, until the new pane is laid out and its first widget can take it: a
        focus left in the pane being hidden lets a late "this pane got focus" message switch straight back."""
        await self.compose_tab(tab)
        # painted before the focus is chosen in it: a tab hidden since the screen was re-bound to another app
        # still showed the last one's fields (an app without a widget: the focus went to its "Press a")
        AppTabs.catch_up(self.query_one(f"#{tab}", TabPane))
        tabs = self.query_one(TabbedContent)
        if tabs.active == tab and path is not None:
            self.call_after_refresh(self._focus_into, tab, path)  # already shown: keep the focus, then move it
            return
        if path is None:
            with self.app.batch_update():  # the tab bar, the pane and the footer change in one frame
                tabs.active = tab
                self._focus_first(tab)
                self.query_one(KeyFooter).refresh()  # it reads the new focus's keys as it draws
            return
        tabs.active = tab
        tabs.query_one(Tabs).focus()
        self.call_after_refresh(self._focus_into, tab, path)

    def _focus_first(self, tab: str) -> None:
        """A digit's switch: the focus on the new pane's first widget (the tab bar for a text field, as in
        :meth:`_focus_into`) at once, so the footer composed right after lists its keys. Nothing stays focused in
        the pane just hidden, so no late "this pane got focus" can switch back."""
        from textual.widgets import Input, TextArea

        pane = self.query_one(f"#{tab}", TabPane)
        first = next((w for w in pane.query("*") if w.focusable and w.display), None)
        if first is None or isinstance(first, Input | TextArea):
            first = self.query_one(TabbedContent).query_one(Tabs)
        self.set_focus(first, scroll_visible=False)

    def show_widget(self, index: int) -> bool:
        """Make widget ``index`` of the app the one the widget tabs edit (a problem or palette entry names it)."""
        widgets = self.editor.get(f"{self.prefix}.widgets", []) or []
        if not isinstance(widgets, list) or not 0 <= index < len(widgets):
            return False
        if index != self.widget_index:
            self.widget_index = index
            self._retitle()
            for pane in self.query(TabPane):
                for child in pane.children:
                    child.post_message(WidgetSwitched(self.widget_index))
        return True

    def _focus_into(self, tab: str, path: str | None = None) -> None:
        """Focus the field of ``path`` when the tab has it (``focus_path``), else the tab's first focusable widget,
        unless it takes text: then the tab bar takes the focus, so the digits and brackets that switch tabs are not
        typed into a field (Tab moves into it). Never left where it was: a focus inside the pane just hidden made
        TabbedContent switch straight back to it ("1" on the Main tab did nothing)."""
        from textual.widgets import Input, TextArea

        if self.query_one(TabbedContent).active != tab:
            # another tab was chosen since (a quick second digit): focusing into this one now would switch back,
            # because TabbedContent activates the pane that receives focus
            return
        pane = self.query_one(f"#{tab}", TabPane)
        if path is not None:
            for child in pane.children:
                focus = getattr(child, "focus_path", None)
                if callable(focus) and focus(path):
                    return
        first = next((w for w in pane.query("*") if w.focusable and w.display), None)
        if first is None or isinstance(first, Input | TextArea):
            self.query_one(TabbedContent).query_one(Tabs).focus()
        else:
            first.focus()

    async def action_tab(self, step: int) -> None:
        current = self.query_one(TabbedContent).active
        index = TAB_IDS.index(current) if current in TAB_IDS else 0
        await self.action_show_tab(TAB_IDS[(index + step) % len(TAB_IDS)])

    def action_browser_preview(self) -> None:
        from tenantdeck.tui.browser_preview import open_preview

        open_preview(self.app, self.app_index, self.widget_index)

    def action_next_widget(self) -> None:
        widgets = self.editor.get(f"{self.prefix}.widgets", []) or []
        if len(widgets) < 2:
            return
        self.show_widget((self.widget_index + 1) % len(widgets))
