"""The command palette (ctrl+p): jump to anything, and the commands that make sense right now.

Jump targets: an app by name, region or id; a webhook by id or name (opens its app on the Webhooks tab); every
field the App screen shows for the current app, or the one highlighted on the Apps screen (a colour, a toggle, an
SMS setting, an extension's setting, the team and its members, an app setting: :mod:`tenantdeck.draft.field_index`),
by label or key, opening the tab that holds it (composed then if it was not yet) with the focus in the field.
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
from textual.content import Content
from textual.fuzzy import Matcher

from tenantdeck.textsafe import shortened, shown
from tenantdeck.tui import browser_preview, navigation
from tenantdeck.tui.host import EditorHost, host_of
from tenantdeck.tui.literal import literal
from tenantdeck.tui.profile import current_profile

if TYPE_CHECKING:
    from textual.app import App


class TenantdeckCommands(Provider):
    """Contextual commands on an empty query; apps, webhooks and every field of the current app once you type."""

    @property
    def host(self) -> EditorHost:
        return host_of(self.app)

    # -- what is offered -----------------------------------------------------------------------------------------

    def contextual(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        app = self.host
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
        yield ("Policies", "Fleet rules, the apps breaking each (jump to the field), fix the obvious ones (P on Apps)",
               app.action_policies)
        count = len(session.problems) if session.validated else 0
        yield "Problems", f"Every validation problem ({count}) with a jump to its field (F8)", app.action_problems
        changed = "; it changed on disk" if session.changed_on_disk() else ""
        yield "Reload from disk", f"Read {app.editor.path.name} again{changed}", app.action_reload
        yield ("Events", "Webhook deliveries received on 127.0.0.1, checked against the event models (F3)",
               app.action_events)
        yield "Copy key path", "Copy the focused field's key path (F4, OSC 52)", app.action_copy_path
        yield from browser_preview.palette_entries(self.app, self.screen)
        yield from self.sync_commands()
        for name in sorted(app.appearance_themes):
            if name != self.app.theme:
                yield f"Theme: {name}", f"Switch to the {name} theme (remembered)", partial(_set_theme, self.app, name)
        yield "Help", "Help and keys for what has focus (F1)", app.action_help

    def sync_commands(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        """Review, refresh, push, pull, settle conflicts, retry, switch profile."""
        app = self.host
        review = navigation.open_review(self.app)
        yield "Review changes", "What a push would change, grouped by app (F6)", app.action_review
        yield "Refresh from the service", "Read the live service: drift and conflicts (r on the review)", partial(
            navigation.review_then, self.app, "refresh")
        yield "Push", "Push the saved draft to the service, after a confirmation (p on the review)", partial(
            navigation.review_then, self.app, "push")
        yield "Pull from the service", "Show what the service's configuration would change in the draft, then "\
            "write it on y (F5)", app.action_pull
        settleable = review.plan.settleable if review and review.plan else []
        if review is not None and settleable:
            if review.conflict_under_cursor() is not None:
                yield "Take theirs (this conflict)", "Write the service's value into the draft (t)", partial(
                    review.action_settle, "theirs")
                yield "Keep mine (this conflict)", "Push the draft's value over the service's (m)", partial(
                    review.action_settle, "mine")
            count = len(settleable)
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
                self.app.notify, str(exc), severity="error", markup=False)
            return
        current = current_profile(app.editor.profile)
        for name in names:
            if name != current:
                yield (f"Profile: {name}", "Plan, push and pull against this profile",
                       partial(navigation.switch_profile, self.app, name))

    def targets(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        app = self.app
        apps = self.host.editor.get("apps", []) or []
        for i, data in enumerate(apps):
            if not isinstance(data, dict):
                continue
            # shortened as every place a person reads a value (a 100,000-character name filled the palette: trial K)
            name = shortened(str(data.get("name", "?")))
            region = data.get("region", "")
            yield f"App: {name}", f"{region} {data.get('id') or 'new'}", partial(navigation.jump, app, i, None)
            hooks = data.get("webhooks")
            for j, hook in enumerate(hooks if isinstance(hooks, list) else []):
                if isinstance(hook, dict):
                    label = " ".join(shortened(str(hook[k])) for k in ("id", "name") if hook.get(k))
                    yield (f"Webhook: {label} ({name})", shortened(str(hook.get("webhookURL", ""))),
                           partial(navigation.jump, app, i, "webhooks", f"apps[{i}].webhooks[{j}]"))
        index = navigation.current_app_index(app)
        if index is None or not 0 <= index < len(apps) or not isinstance(apps[index], dict):
            return
        widgets = apps[index].get("widgets")
        shown_widget = navigation.current_widget_index(app, index)
        # no widget: no widget field to focus, so none is offered
        widget = shown_widget if isinstance(widgets, list) and 0 <= shown_widget < len(widgets) else None
        from tenantdeck.draft.app_tabs import tab_of_draft_path
        from tenantdeck.draft.field_index import fields_of_app
        from tenantdeck.problems import parse_path

        for entry in fields_of_app(apps[index], index, widget):
            where = tab_of_draft_path(parse_path(entry.path))
            tab = where[1] if where else None
            yield entry.text, entry.help, partial(navigation.jump, app, index, tab, entry.path)

    # -- the Provider interface ---------------------------------------------------------------------------------

    async def discover(self) -> Hits:
        for text, help_text, command in self.contextual():
            # names, URLs, profiles: data; the palette reads a str prompt and help as markup, so every `[` is escaped
            yield DiscoveryHit(literal(text), command, help=literal(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        n = 0
        for source in (self.contextual(), self.targets()):
            for raw, raw_help, command in source:
                text, help_text = shown(raw), shown(raw_help)  # app and webhook names, URLs, profiles: data
                n += 1
                if n % 500 == 0:
                    await asyncio.sleep(0)  # 5,000 apps: let the palette paint between batches
                score = matcher.match(text)
                if score > 0:
                    yield Hit(score, _highlighted(matcher, text), command, text=text, help=literal(help_text))


def _highlighted(matcher: Matcher, text: str) -> Content:
    """What ``Matcher.highlight`` gives, from plain text: it reads its candidate as markup, so an app named
    ``Shop [/] x`` raised ``MarkupError`` and closed the editor at the first letter typed in the palette."""
    content = Content(text)
    _, offsets = matcher.fuzzy_search.match(matcher.query, text)
    for offset in offsets:
        if offset < len(text) and not text[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


def _set_theme(app: App[Any], name: str) -> None:
    app.theme = name
