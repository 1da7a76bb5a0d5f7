"""The Webhooks tab: a table of one app's webhooks; add, edit and delete through :class:`WebhookForm`.

Why edits are per field: an edited webhook is written as the fields that changed (and the ones the form left
unset are removed), in one undo step, so the lines the edit did not touch, and their comments (such as pull's
"not reported by the service" note), stay as they are.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from tenantdeck.draft import webhook_view as wv
from tenantdeck.models import catalog
from tenantdeck.textsafe import fitted, shortened, shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener
from tenantdeck.tui.tabs.tab_refresh import RefreshWhenShown
from tenantdeck.tui.widgets.columns import RefitOnResize
from tenantdeck.tui.widgets.quiet import update_static
from tenantdeck.tui.widgets.row_table import RowTable

#: (label, width); the URL takes what is left (at least 12), the detail below the table shows it in full
COLUMNS = (("Id", 10), ("Name", 14), ("URL", 0), ("On", 3), ("Auth", 4), ("Retry", 5), ("Trig", 4),
           ("Problems", 9))


class WebhooksTab(UsesEditor, DraftListener, RefreshWhenShown, RefitOnResize, Vertical):
    """``a`` adds, ``e`` or Enter edits, ``d`` or Delete deletes (after a confirm) the webhook under the cursor."""

    HELP = """\
## Webhooks

The app's webhooks. Columns: **On** enabled, **Auth** Basic Auth, **Retry** retry on failure, **Trig** the
number of triggers. **-** means *not set in the draft* (left as it is on the service). Basic Auth, the username,
the password and retry are never reported by the service, so a pulled draft may not know them; a push leaves
them as they are.

- `a`: add a webhook · `e` or `Enter`: edit it · `d` or `Delete`: delete it (asks first) · `Ctrl+Z`: undo
- `t`: **send a test event** to the webhook's URL (a trigger's sample delivery, with its Basic Auth; the password
  from its `${VAR}`); `F3` shows what the editor's own receiver got (a URL on its port,
  `http://127.0.0.1:8788/...` by default, starts it)
"""
    BINDINGS = [
        Binding("a", "add", "Add", id="webhooks.add", tooltip="Add a webhook"),
        Binding("e", "edit", "Edit", id="webhooks.edit", tooltip="Edit the webhook under the cursor"),
        Binding("d,delete", "delete", "Delete", id="webhooks.delete", tooltip="Delete the webhook (asks first)"),
        Binding("t", "send_test", "Test event", id="webhooks.send_test",
                tooltip="POST a trigger's sample delivery to the webhook's URL with its Basic Auth"),
    ]
    DEFAULT_CSS = """
    WebhooksTab { height: 1fr; }
    WebhooksTab #wh-summary { height: auto; padding: 0 1; color: $text-muted; }
    WebhooksTab DataTable { height: 1fr; }
    WebhooksTab #wh-detail { height: 7; padding: 0 1; border-top: solid $primary; }
    """

    def __init__(self, app_index: int) -> None:
        super().__init__()
        self.app_index = app_index
        self._want_row: int | None = None  #: where the cursor goes at the next refresh (a webhook just added)

    @property
    def prefix(self) -> str:
        return f"apps[{self.app_index}].webhooks"

    def hooks(self) -> list[Any]:
        value = self.editor.get(self.prefix, None)
        return value if isinstance(value, list) else []

    def compose(self) -> ComposeResult:
        yield Static("", id="wh-summary")
        table: DataTable[str] = RowTable(id="webhooks", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="wh-detail", markup=False)

    def on_mount(self) -> None:
        self.refresh_rows()

    def _widths(self) -> list[int]:
        fixed = sum(w for _, w in COLUMNS) + 2 * len(COLUMNS) + 2  # cell padding, scroll bar
        return [w or max(12, self.size.width - fixed) for _, w in COLUMNS]

    # -- rendering ---------------------------------------------------------------------------------------------

    def refresh_rows(self) -> None:
        hooks = self.hooks()
        table = self.query_one(DataTable)
        row = table.cursor_row if self._want_row is None else self._want_row
        self._want_row = None
        table.clear(columns=True)
        widths = self._widths()
        for (label, _), width in zip(COLUMNS, widths, strict=True):
            table.add_column(label, width=width)
        for j, hook in enumerate(hooks):
            problems = self.editor.problems_at(f"{self.prefix}[{j}]")
            errors = sum(p.is_error for p in problems)
            cells = wv.row_cells(hook, (errors, len(problems) - errors))
            table.add_row(*(Text(fitted(shown(c), w)) for c, w in zip(cells, widths, strict=True)), key=str(j))
        if hooks:
            table.move_cursor(row=min(max(row, 0), len(hooks) - 1))
        limit = catalog.WEBHOOKS_PER_APP
        update_static(self.query_one("#wh-summary", Static),
            f"{len(hooks)} webhooks (at most {limit}). -: {wv.NOT_SET}." if hooks
            else "No webhooks in the draft for this app: `a` adds one.")
        self._show_detail()

    def _current(self) -> int | None:
        table = self.query_one(DataTable)
        n = len(self.hooks())
        return table.cursor_row if n and 0 <= table.cursor_row < n else None

    def _show_detail(self) -> None:
        detail = self.query_one("#wh-detail", Static)
        j = self._current()
        if j is None:
            update_static(detail, "")
            return
        hook = self.hooks()[j]
        hook = hook if isinstance(hook, dict) else {}
        triggers = hook.get("triggers") if isinstance(hook.get("triggers"), list) else []
        # each value shortened as every person-facing place does (a 100,000-character name filled the pane: trial
        # J, J14); the form (e) holds them whole
        words = (shown(shortened(str(hook.get(key, default))))
                 for key, default in (("id", "?"), ("name", ""), ("webhookURL", "")))
        lines = [" · ".join(words), f"triggers: {shown(shortened(', '.join(map(str, triggers)))) or 'none'}"]
        unset = [k for k in catalog.WEBHOOK_WRITE_ONLY if k not in hook]
        if unset:
            lines.append(f"{', '.join(unset)}: {wv.NOT_SET}.")
        lines += [f"{'error' if p.is_error else 'warning'}: {shown(p.key_path.rsplit('.', 1)[-1])}: {shown(p.message)}"
                  for p in self.editor.problems_at(f"{self.prefix}[{j}]")]
        update_static(detail, "\n".join(lines))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def focus_path(self, path: str) -> bool:
        """``apps[i].webhooks[j]``: the cursor on webhook ``j``, the table focused; ``...webhooks[j].<field>``: its
        form opens on that field (a problem names it), so what is typed next goes there."""
        from tenantdeck.problems import parse_path

        try:
            parts = parse_path(path)
        except ValueError:
            return False
        if parts[:3] != ("apps", self.app_index, "webhooks"):
            return False
        table = self.query_one(DataTable)
        j = parts[3] if len(parts) > 3 and isinstance(parts[3], int) else None
        if j is not None and 0 <= j < len(self.hooks()):
            table.move_cursor(row=j)
        table.focus()
        if j is not None and len(parts) > 4 and isinstance(parts[4], str):
            self.action_edit(focus_key=parts[4])
        return True

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_edit()

    def on_draft_changed(self, message: DraftChanged) -> None:
        if message.touches(f"apps[{self.app_index}]"):
            self.refresh_or_defer()

    def refresh_content(self) -> None:
        self.refresh_rows()

    # -- actions -----------------------------------------------------------------------------------------------

    def _ids(self, skip: int | None = None) -> set[str]:
        return {str(h.get("id")) for j, h in enumerate(self.hooks()) if isinstance(h, dict) and j != skip}

    def _app_name(self) -> str:
        return str(self.editor.get(f"apps[{self.app_index}].name", "") or "")

    def action_add(self) -> None:
        from tenantdeck.tui.tabs.webhook_form import WebhookForm

        if len(self.hooks()) >= catalog.WEBHOOKS_PER_APP:
            self.notify(f"An app has at most {catalog.WEBHOOKS_PER_APP} webhooks.", severity="error", markup=False)
            return

        def done(result: dict[str, Any] | None) -> None:
            if result is None:
                return
            has_list = isinstance(self.editor.get(self.prefix, None), list)
            outcome = self.editor.insert(self.prefix, result if has_list else [result])
            if outcome.ok:
                self._want_row = len(self.hooks()) - 1
            self._report(outcome, f"Webhook {result.get('id')} added (F2 saves the draft).")

        self.app.push_screen(WebhookForm(None, other_ids=self._ids(), app_name=self._app_name()), done)

    def action_edit(self, focus_key: str | None = None) -> None:
        """The form of the webhook under the cursor, opened on ``focus_key`` when given."""
        from tenantdeck.tui.tabs.webhook_form import WebhookForm

        picked = self._current_hook("No webhook to edit: `a` adds one.")
        if picked is None:
            return
        j, original = picked

        def done(result: dict[str, Any] | None) -> None:
            if result is None:
                return
            edits = wv.webhook_edits(f"{self.prefix}[{j}]", original, result)
            if not edits:
                self.notify("No change.", markup=False)
                return
            self._report(self.editor.apply(edits), f"Webhook {result.get('id')} changed (F2 saves the draft).")

        self.app.push_screen(WebhookForm(original, other_ids=self._ids(skip=j), app_name=self._app_name(),
                                         focus_key=focus_key), done)

    def action_delete(self) -> None:
        from tenantdeck.tui.widgets.confirm import ConfirmScreen

        j = self._current()
        if j is None:
            return
        hook = self.hooks()[j]
        hook_id = hook.get("id", "?") if isinstance(hook, dict) else "?"

        def answered(yes: bool | None) -> None:
            if yes:
                self._report(self.editor.delete(f"{self.prefix}[{j}]"),
                             f"Webhook {hook_id} deleted from the draft (Ctrl+Z undoes).")

        self.app.push_screen(ConfirmScreen(f"Delete webhook {hook_id!s} from the draft? A push with deletes allowed "
                                           "then deletes it on the service.", yes="Delete"), answered)

    def action_send_test(self) -> None:
        from tenantdeck.events_send import NotSendable, endpoint_for
        from tenantdeck.tui.tabs.send_test_event import SendTestEvent

        picked = self._current_hook("No webhook to send to: `a` adds one.")
        if picked is None:
            return
        hook = picked[1]
        try:
            target = endpoint_for(hook)
        except NotSendable as exc:
            self.notify(f"Not sent: {exc}.", title=f"Test event to {hook.get('id', '?')}", severity="error",
                        timeout=15, markup=False)
            return
        app = self.editor.get(f"apps[{self.app_index}]", {}) or {}
        app_id = str(app.get("id") or "sampleapp") if isinstance(app, dict) else "sampleapp"
        region = str(app.get("region") or "us") if isinstance(app, dict) else "us"
        self.app.push_screen(SendTestEvent(hook, target, app_id=app_id, region=region))

    def _current_hook(self, none: str) -> tuple[int, dict[str, Any]] | None:
        """The webhook under the cursor and its index, or None after saying why (``none`` when there is none)."""
        j = self._current()
        if j is None:
            self.notify(none, markup=False)
            return None
        hook = self.hooks()[j]
        if not isinstance(hook, dict):
            self.notify(f"webhooks[{j}] is not a mapping in the draft; fix it there (F8 lists the problem).",
                        severity="error", markup=False)
            return None
        return j, hook

    def _report(self, outcome: Any, done: str) -> None:
        if not outcome.ok:
            self.notify(outcome.refused, title="Not changed", severity="error", markup=False)
        else:
            self.notify(done, markup=False)
