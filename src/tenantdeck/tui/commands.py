"""The command palette (ctrl+p): jump to anything, and the commands that make sense right now.

Jump targets: an app by name, region or id; a webhook by id or name (opens its app on the Webhooks tab); a Main
toggle by key or label (opens the current app, or the one highlighted on the Apps screen, on the Main tab).
Contextual commands are offered only when they apply: save when there are unsaved edits, undo/redo when there is
something to take back, reload when the file changed on disk, the themes you are not using; review, refresh, push
and pull; take mine / take theirs for the conflict under the cursor or all of them (on the review screen); retry
a push that did not finish; switch to another profile (the review then plans against it).

Every jump lands with the focus in what the entry names (the toggle's row, the webhook's row), scrolled into view:
tabs that can focus a field implement ``focus_path(key_path) -> bool`` (a str such as
``apps[0].widgets[0].main.send_gifs``) and the App screen asks them once the tab is laid out. An entry no tab could
focus is not offered (no toggles for an app without a widget). A widget that edits one value may expose
``key_path``, which is what F4 copies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from tenantdeck.tui.app import TenantdeckApp


class TenantdeckCommands(Provider):
    """Contextual commands on an empty query; apps, webhooks and toggles too once you type."""

    @property
    def tapp(self) -> TenantdeckApp:
        return self.app  # type: ignore[return-value]

    # -- what is offered -----------------------------------------------------------------------------------------

    def contextual(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        app = self.tapp
        session = app.editor.session
        if session.dirty:
            yield "Save the draft", "Write it now (F2); comments and layout are kept", app.action_save
        if session.can_undo:
            yield "Undo", "Take back the last edit (ctrl+z)", app.action_undo
        if session.can_redo:
            yield "Redo", "Make the undone edit again (ctrl+y)", app.action_redo
        yield ("Bulk edit", "Set one toggle, colour, listing or trigger on many apps as one step (b on Apps)",
               app.action_bulk_edit)
        yield "Presets", "Each preset, the apps extending it, and what an edit reaches (p on Apps)", app.action_presets
        count = len(session.problems) if session.validated else 0
        yield "Problems", f"Every validation problem ({count}) with a jump to its field (F8)", app.action_problems
        changed = "; it changed on disk" if session.changed_on_disk() else ""
        yield "Reload from disk", f"Read {app.editor.path.name} again{changed}", app.safety.ask_reload
        yield ("Events", "Webhook deliveries received on 127.0.0.1, checked against the event models (F3)",
               app.action_events)
        yield "Copy key path", "Copy the focused field's key path (F4, OSC 52)", app.action_copy_path
        yield from self.sync_commands()
        for name in sorted(app.appearance_themes):
            if name != app.theme:
                yield f"Theme: {name}", f"Switch to the {name} theme (remembered)", partial(_set_theme, app, name)
        yield "Help", "Help and keys for what has focus (F1)", app.action_help

    def sync_commands(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        """Review, refresh, push, pull, settle conflicts, retry, switch profile."""
        from tenantdeck.tui.review_screen import ReviewScreen

        app = self.tapp
        review = app.screen if isinstance(app.screen, ReviewScreen) else None
        yield "Review changes", "What a push would change, grouped by app (F6)", app.action_review
        yield "Refresh from the service", "Read the live service: drift and conflicts (r on the review)", partial(
            _on_review, app, "refresh")
        yield "Push", "Push the saved draft to the service, after a confirmation (p on the review)", partial(
            _on_review, app, "push")
        yield "Pull from the service", "Show what the service's configuration would change in the draft, then "\
            "write it on y (F5)", app.action_pull
        if review is not None and review.plan is not None and review.plan.conflicts:
            if review.conflict_under_cursor() is not None:
                yield "Take theirs (this conflict)", "Write the service's value into the draft (t)", partial(
                    review.action_settle, "theirs")
                yield "Keep mine (this conflict)", "Push the draft's value over the service's (m)", partial(
                    review.action_settle, "mine")
            count = len(review.plan.conflicts)
            yield f"Take theirs (all {count} conflicts)", "Write every conflicting live value into the draft", partial(
                review.action_settle, "theirs", True)
            yield f"Keep mine (all {count} conflicts)", "Push the draft's value of every conflict", partial(
                review.action_settle, "mine", True)
        if review is not None and review.last_result is not None and not review.last_result.complete:
            yield "Retry failed operations", "Push only what the last push did not apply (f)", review.action_retry
        try:
            from tenantdeck.targets import profile_names

            names = profile_names()
        except Exception as exc:  # a broken profiles.yaml: say where, once asked
            yield "Switch profile", f"profiles.yaml cannot be read: {exc}", partial(
                app.notify, str(exc), severity="error", markup=False)
            return
        current = current_profile(app.editor.profile)
        for name in names:
            if name != current:
                yield f"Profile: {name}", "Plan, push and pull against this profile", partial(switch_profile, app, name)

    def targets(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        app = self.tapp
        apps = app.editor.get("apps", []) or []
        for i, data in enumerate(apps):
            if not isinstance(data, dict):
                continue
            name = str(data.get("name", "?"))
            region = data.get("region", "")
            yield f"App: {name}", f"{region} {data.get('id') or 'new'}", partial(jump, app, i, None)
            hooks = data.get("webhooks")
            for j, hook in enumerate(hooks if isinstance(hooks, list) else []):
                if isinstance(hook, dict):
                    label = " ".join(str(hook[k]) for k in ("id", "name") if hook.get(k))
                    yield (f"Webhook: {label} ({name})", str(hook.get("webhookURL", "")),
                           partial(jump, app, i, "webhooks", f"apps[{i}].webhooks[{j}]"))
        index = current_app_index(app)
        if index is None or not 0 <= index < len(apps) or not isinstance(apps[index], dict):
            return
        widgets = apps[index].get("widgets")
        widget = current_widget_index(app, index)
        if not isinstance(widgets, list) or not 0 <= widget < len(widgets):
            return  # no widget: no toggle to focus, so none is offered
        from tenantdeck.models.catalog import MAIN_TOGGLES

        name = str(apps[index].get("name", "?"))
        for toggle in MAIN_TOGGLES:
            yield (f"Toggle: {toggle.label} ({toggle.key})", f"{toggle.topic} · {name}",
                   partial(jump, app, index, "main", f"apps[{index}].widgets[{widget}].main.{toggle.key}"))

    # -- the Provider interface ---------------------------------------------------------------------------------

    async def discover(self) -> Hits:
        for text, help_text, command in self.contextual():
            yield DiscoveryHit(text, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        n = 0
        for source in (self.contextual(), self.targets()):
            for text, help_text, command in source:
                n += 1
                if n % 500 == 0:
                    await asyncio.sleep(0)  # 5,000 apps: let the palette paint between batches
                score = matcher.match(text)
                if score > 0:
                    yield Hit(score, matcher.highlight(text), command, text=text, help=help_text)


def _set_theme(app: TenantdeckApp, name: str) -> None:
    app.theme = name


def _on_review(app: TenantdeckApp, action: str) -> None:
    """Run a review action, opening the review screen first when it is not on top."""
    from tenantdeck.tui.review_screen import ReviewScreen

    if not isinstance(app.screen, ReviewScreen):
        app.action_review()
    app.call_after_refresh(lambda: getattr(app.screen, f"action_{action}")())


def current_profile(profile: str | None) -> str:
    """The profile name the editor works against: the chosen one, else ``default:`` of profiles.yaml, else local
    (``custom`` when ``TENANTDECK_BASE_URL`` overrides them all). Never raises: a broken file reads as unknown."""
    import os

    from tenantdeck.targets import ENV_BASE_URL, LOCAL, load_profiles, profiles_path

    if os.environ.get(ENV_BASE_URL):
        return "custom"
    if profile:
        return profile
    try:
        path = profiles_path()
        config = load_profiles(path) if path.exists() else None
    except Exception:
        return "unknown (profiles.yaml cannot be read)"
    return (config.default if config else None) or LOCAL


def profile_subtitle(profile: str | None) -> str:
    return f"profile: {current_profile(profile)}"


def switch_profile(app: TenantdeckApp, name: str) -> None:
    """Plan, push and pull against ``name`` from now on; an open review plans again against it."""
    from tenantdeck.tui.review_screen import ReviewScreen

    app.editor.profile = name
    app.sub_title = profile_subtitle(name)
    for screen in app.screen_stack:
        if str(getattr(screen, "sub_title", None) or "").startswith("profile: "):
            screen.sub_title = app.sub_title
        if isinstance(screen, ReviewScreen) and not screen.pushing:
            screen.make_plan(online=screen.online)
    app.notify(f"Profile {name}: reviews, pushes and pulls now go to it.", title="Profile", markup=False)


def current_app_index(app: TenantdeckApp) -> int | None:
    """The app the user is on: the App screen's, else the row highlighted on the Apps screen."""
    from tenantdeck.tui.app_screen import AppScreen
    from tenantdeck.tui.apps_screen import AppsScreen

    for screen in reversed(app.screen_stack):
        if isinstance(screen, AppScreen):
            return screen.app_index
        if isinstance(screen, AppsScreen):
            return screen.selected_index()
    return None


def current_widget_index(app: TenantdeckApp, index: int) -> int:
    """The widget the widget tabs of app ``index`` show (its App screen's), else the first."""
    from tenantdeck.tui.app_screen import AppScreen

    for screen in reversed(app.screen_stack):
        if isinstance(screen, AppScreen) and screen.app_index == index:
            return screen.widget_index
    return 0


def jump(app: TenantdeckApp, index: int, tab: str | None, path: str | None = None) -> None:
    """Show app ``index`` on ``tab`` (reusing its App screen when it is on top) with the focus in the field of
    ``path``: the tab focuses it once it is laid out (``AppScreen._focus_into``), so nothing focuses the tab's first
    field after it."""
    from tenantdeck.tui.app_screen import AppScreen

    top = app.screen
    if isinstance(top, AppScreen) and top.app_index == index:
        if tab:
            top.action_show_tab(tab, path)
    else:
        while len(app.screen_stack) > 1:
            app.pop_screen()
        app.open_app(index, tab, path)


def focused_key_path(app: TenantdeckApp) -> str | None:
    """The key path of what has focus: the nearest ``key_path`` up from the focused widget, else the screen's
    (the highlighted app or problem, the open app)."""
    node: Any = app.focused
    while node is not None:
        path = getattr(node, "key_path", None)
        if isinstance(path, str) and path:
            return path
        node = node.parent
    screen = app.screen
    from tenantdeck.tui.app_screen import AppScreen
    from tenantdeck.tui.apps_screen import AppsScreen
    from tenantdeck.tui.problems_screen import ProblemsScreen

    if isinstance(screen, ProblemsScreen):
        problems = getattr(screen, "_problems", [])
        table = screen.query_one("DataTable")
        row = getattr(table, "cursor_row", 0)
        if problems and 0 <= row < len(problems):
            return str(problems[row].key_path) or None
    if isinstance(screen, AppsScreen):
        index = screen.selected_index()
        return f"apps[{index}]" if index is not None else None
    if isinstance(screen, AppScreen):
        return screen.prefix
    return None
