"""F3: live webhook deliveries received by the editor's own receiver, each checked against the event models.

Why: admins need to see their webhooks fire with the payloads the spec promises (the sandbox delivers to loopback)
and what "Send test event" sends, before a push. The receiver is core (:mod:`tenantdeck.receiver`) and lives for
the session (:mod:`tenantdeck.tui.event_lab`); this screen only renders its deliveries, newest first, and the
selected one's payload as a tree with every problem on its node. Nothing is dropped: unknown triggers, invalid,
unparseable, oversized and unauthorised requests are rows too, flagged. Each row shows the delivery's idempotency key
and whether it repeats an earlier one (a retried delivery); filters by trigger and validity narrow the list, and a
delivery can be saved as JSON for a bug report.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from tenantdeck.atomic import WriteFailed, atomic_write_text
from tenantdeck.models import catalog
from tenantdeck.models.events import LEGACY_TRIGGERS
from tenantdeck.receiver import Delivery
from tenantdeck.textsafe import fitted, fitted_end, json_text, shown
from tenantdeck.tui.screens.save_delivery import SaveDeliveryScreen
from tenantdeck.tui.widgets.columns import RefitOnResize
from tenantdeck.tui.widgets.confirm import ConfirmScreen
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.header import TitleHeader
from tenantdeck.tui.widgets.payload_tree import PayloadTree
from tenantdeck.tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from tenantdeck.tui.event_lab import EventLab

#: (label, width); Trigger takes what is left (at least 14)
COLUMNS = (("Time (UTC)", 12), ("Trigger", 0), ("Result", 11), ("Idempotency key", 16), ("Auth", 5), ("Size", 6))
#: The validity filter's steps (``v`` cycles them): what each keeps.
VALIDITY = {
    "all": lambda d: True,
    "valid": lambda d: d.valid,
    "invalid": lambda d: not d.valid,
    "duplicates": lambda d: d.duplicate_of is not None,
}


def verdict(delivery: Delivery) -> tuple[str, str]:
    """(short result, style) of a delivery: what the Result column says."""
    if delivery.status == 401:
        return "401 auth", "bold red"
    if delivery.status == 413:
        return "413 large", "bold red"
    if delivery.raw is not None:
        return "not JSON", "bold red"
    known = delivery.trigger in catalog.TRIGGER_IDS or delivery.trigger in LEGACY_TRIGGERS
    if delivery.trigger is None or not known:
        return ("unknown" if delivery.trigger else "no trigger"), "bold yellow"
    if not delivery.valid:
        return f"invalid ({len(delivery.problems)})", "bold red"
    if delivery.duplicate_of is not None:
        return f"dup of #{delivery.duplicate_of}", "bold yellow"
    return ("legacy" if delivery.legacy else "valid"), "green"


def auth_cell(delivery: Delivery) -> str:
    return {"not required": "-", "ok": "ok"}.get(delivery.auth, delivery.auth)


def size_cell(size: int) -> str:
    return f"{size} B" if size < 10_000 else f"{size // 1024} KB"


class EventsScreen(RefitOnResize, Screen[None]):
    """Deliveries newest first; the highlighted one's payload and problems below. Escape goes back."""

    HELP = """\
## Events

Webhook deliveries received by the editor's own receiver on 127.0.0.1 (port 8788 by default: `events_port` in
`settings.yaml` or `tenantdeck edit --events-port N`; a busy port falls back to a free one, said in a notice).
Point a webhook's URL at the address shown (plain http is accepted for loopback hosts, with a warning), push it to
the sandbox and act in the chat API, or use **Send test event** (`t` on the Webhooks tab).

Each request is a row, newest first: valid, invalid (with the number of problems), unknown trigger, not JSON,
401 (wrong or missing Basic Auth), 413 (too large). The payload of the highlighted row is shown as a tree with
each problem on its node (a missing field as a red "(missing)" node); the list beside it has every problem:
`Enter` on one moves to its node. The receiver keeps the last 500.

The Idempotency key column is the key the vendor's docs give for the trigger (`webhook|trigger|...`); a
delivery whose key was seen before is a retry (or a replay) and its Result says `dup of #N`. The detail above the
problems names the variant of the payload where the vendor publishes several, and legacy (v1) deliveries.

- `Tab`: between the table, the tree and the problems · `s`: stop / start the receiver
- `f`: filter by trigger (cycles through the triggers received) · `v`: by validity (all, valid, invalid,
  duplicates) · `w`: save the highlighted delivery as JSON
- `u`: copy the receiver's URL · `c`: clear the list · `Escape`: back
"""
    BINDINGS = [
        Binding("escape", "back", "Back", id="events.back"),
        Binding("s", "toggle_receiver", "Receiver", id="events.toggle", tooltip="Stop or start the receiver"),
        # f, v and w are named in the status line (with the filters they set): the 80-column footer keeps F2 Save
        Binding("f", "filter_trigger", "Trigger", show=False, id="events.filter_trigger"),
        Binding("v", "filter_validity", "Validity", show=False, id="events.filter_validity"),
        Binding("w", "save", "JSON", show=False, id="events.save"),
        Binding("u", "copy_url", "Copy URL", show=False, id="events.copy_url"),
        Binding("c", "clear", "Clear", show=False, id="events.clear"),
    ]
    DEFAULT_CSS = """
    EventsScreen #ev-status { height: auto; padding: 0 1; background: $boost; }
    EventsScreen #ev-table { height: 1fr; min-height: 5; }
    EventsScreen #ev-detail { height: 2fr; border-top: solid $primary; }
    EventsScreen PayloadTree { width: 3fr; }
    EventsScreen #ev-problems { width: 2fr; border-left: solid $primary; }
    EventsScreen #ev-problems:focus { border-left: solid $accent; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._shown: list[Delivery] = []  #: the table's rows, newest first
        self._detail_seq: int | None = None  #: the delivery the tree shows (not rebuilt while it stays)
        self._pending = False  #: a redraw for new deliveries is queued
        self._unlisten: Callable[[], None] = lambda: None
        self.trigger_filter: str | None = None  #: show only this trigger (None: all)
        self.validity_filter = "all"  #: a key of :data:`VALIDITY`

    @property
    def lab(self) -> EventLab:
        return self.app.event_lab  # type: ignore[attr-defined,no-any-return]

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Static("", id="ev-status", markup=False)
        yield RowTable(id="ev-table", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="ev-detail"):
            yield PayloadTree(id="ev-tree")
            with Vertical(id="ev-problems"):
                yield OptionList(id="ev-problem-list")
        yield KeyFooter()

    async def on_mount(self) -> None:
        self.sub_title = "Events"
        self.refresh_rows()
        self.query_one(DataTable).focus()
        self._unlisten = self.lab.receiver.add_listener(self._arrived)
        if self.lab.autostart and not self.lab.running:
            await self._start()
        self._show_status()

    def on_screen_resume(self) -> None:
        self.refresh_rows()
        self._show_status()

    # -- the receiver ------------------------------------------------------------------------------------------

    async def _start(self) -> None:
        outcome = await self.lab.start()
        if outcome.notice:
            self.notify(outcome.notice, title="Receiver", severity="warning" if outcome.running else "error",
                        timeout=20, markup=False)

    def on_unmount(self) -> None:
        self._unlisten()

    def _arrived(self, delivery: Delivery) -> None:
        """A new delivery (called by the receiver on this loop): redraw once for a burst, not once per request."""
        if not self._pending:
            self._pending = True
            self.call_later(self._flush)

    def _flush(self) -> None:
        self._pending = False
        self.refresh_rows()
        self._show_status()

    def _show_status(self) -> None:
        receiver = self.lab.receiver
        auth = f"Basic Auth as {receiver.auth_user}" if receiver.requires_auth else "no Basic Auth"
        if receiver.running:
            lines = [f"Receiving on {receiver.url} · {auth} · {receiver.count} requests",
                     f"Point webhooks at {receiver.url}/hooks (Webhooks tab: t sends a test)"]
        else:
            lines = [f"Not receiving · {auth} · s starts the receiver on 127.0.0.1:{self.lab.wanted_port}",
                     f"{len(receiver.deliveries)} deliveries kept from before"]
        trigger = shown(self.trigger_filter) if self.trigger_filter else "all"
        lines.append(f"Showing {len(self._shown)} · trigger: {trigger} (f) · validity: {self.validity_filter} (v)"
                     " · w saves it")
        self.query_one("#ev-status", Static).update("\n".join(lines))

    # -- rendering ---------------------------------------------------------------------------------------------

    def _widths(self) -> list[int]:
        fixed = sum(w for _, w in COLUMNS) + 2 * len(COLUMNS) + 2
        return [w or max(14, self.size.width - fixed) for _, w in COLUMNS]

    def refresh_rows(self) -> None:
        """Rebuild the table newest first, keeping the cursor on the delivery it was on (on the newest row, it
        follows the newest, like a tail)."""
        table = self.query_one(DataTable)
        current = self.current() if table.cursor_row > 0 else None  # on the newest row: follow the newest
        keep = VALIDITY[self.validity_filter]
        self._shown = [d for d in reversed(self.lab.receiver.deliveries)
                       if keep(d) and (self.trigger_filter is None or d.trigger == self.trigger_filter)]
        table.clear(columns=True)
        widths = self._widths()
        for (label, _), width in zip(COLUMNS, widths, strict=True):
            table.add_column(label, width=width)
        for d in self._shown:
            result, style = verdict(d)
            trigger = shown(d.trigger or "-")  # the trigger and the path are the sender's: data
            # built from the sender's data; it differs in its last parts, so its end is kept
            key = shown(d.idempotency_key) if d.idempotency_key else "-"
            table.add_row(Text(d.received_at[11:23]), Text(fitted(trigger, widths[1])), Text(result, style=style),
                          Text(fitted_end(key, widths[3])), Text(auth_cell(d)), Text(size_cell(d.size)),
                          key=str(d.seq))
        if not self._shown:
            self._show_detail(None)
            return
        row = 0
        if current is not None:
            row = next((i for i, d in enumerate(self._shown) if d.seq == current.seq), 0)
        table.move_cursor(row=row)
        self._show_detail(self._shown[row])

    def current(self) -> Delivery | None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        return self._shown[row] if self._shown and 0 <= row < len(self._shown) else None

    def _show_detail(self, delivery: Delivery | None) -> None:
        tree = self.query_one(PayloadTree)
        if delivery is not None and self._detail_seq == delivery.seq:
            return
        self._detail_seq = delivery.seq if delivery else None
        tree.show(delivery)
        options = self.query_one("#ev-problem-list", OptionList)
        options.clear_options()
        if delivery is None:
            options.add_option(Option(Text("Nothing received yet.", style="dim"), disabled=True))
            return
        head = Text.assemble((f"#{delivery.seq} ", "bold"), shown(f"{delivery.method} {delivery.path} → "
                             f"{delivery.status}"), shown(f" · auth {delivery.auth}" +
                             (f" ({delivery.auth_user})" if delivery.auth_user else "")))
        options.add_option(Option(head, disabled=True))
        if delivery.idempotency_key:
            again = f" · duplicate of #{delivery.duplicate_of}" if delivery.duplicate_of is not None else ""
            options.add_option(Option(Text(shown(f"key {delivery.idempotency_key}{again}"),
                                           style="bold yellow" if again else ""), disabled=True))
        if delivery.variant:
            options.add_option(Option(Text(shown(f"variant: {delivery.variant}"), style="dim"), disabled=True))
        if not delivery.problems:
            options.add_option(Option(Text("valid: no problems", style="green"), disabled=True))
        for i, item in enumerate(tree.located):
            options.add_option(Option(Text(shown(f"⚠ {item.text}"), style="red"), id=f"p{i}"))
        if tree.located:
            tree.jump_to(tree.located[0], focus=False)  # the first problem in view, where the eye goes

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(self.current())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        tree = self.query_one(PayloadTree)
        option_id = event.option.id or ""
        if option_id.startswith("p"):
            tree.jump_to(tree.located[int(option_id[1:])])

    # -- actions -----------------------------------------------------------------------------------------------

    async def action_toggle_receiver(self) -> None:
        if self.lab.running:
            await self.lab.stop()
            self.notify("Receiver stopped; s starts it again.", markup=False)
        else:
            await self._start()
        self._show_status()

    def action_filter_trigger(self) -> None:
        """The next trigger among those received (in the order first seen), then all again."""
        seen = list(dict.fromkeys(d.trigger for d in self.lab.receiver.deliveries if d.trigger))
        steps: list[str | None] = [None, *seen]
        at = steps.index(self.trigger_filter) if self.trigger_filter in steps else 0
        self.trigger_filter = steps[(at + 1) % len(steps)]
        self.refresh_rows()
        self._show_status()

    def action_filter_validity(self) -> None:
        steps = list(VALIDITY)
        self.validity_filter = steps[(steps.index(self.validity_filter) + 1) % len(steps)]
        self.refresh_rows()
        self._show_status()

    def action_save(self) -> None:
        delivery = self.current()
        if delivery is None:
            self.notify("No delivery to save.", markup=False)
            return

        def write(target: Path) -> None:
            text = json_text(delivery.to_json(), indent=2) + "\n"
            try:
                atomic_write_text(target, text)
            except (WriteFailed, OSError) as exc:
                self.notify(f"Not saved: {exc}", title="Save delivery", severity="error", markup=False)
                return
            self.notify(f"Saved delivery #{delivery.seq} to {shown(str(target))}.", markup=False)

        def save(path: str | None) -> None:
            if path is None:
                return
            target = Path(path).expanduser().absolute()  # the notices say where it went, not a bare file name
            if not target.exists():
                write(target)
                return
            # a file the user may have saved before (an earlier delivery, by the same suggested name): asked, not
            # replaced unseen
            question = f"{shown(str(target))} exists. Replace it with delivery #{delivery.seq}?"
            self.app.push_screen(ConfirmScreen(question, yes="Replace", no="Keep it", markup=False),
                                 lambda replace: write(target) if replace else self.notify(
                                     f"Not saved: {shown(str(target))} kept as it was.", markup=False))

        self.app.push_screen(SaveDeliveryScreen(f"delivery-{delivery.seq}.json"), save)

    def action_copy_url(self) -> None:
        url = f"{self.lab.receiver.url}/hooks"
        self.app.copy_to_clipboard(url)
        self.notify(f"Copied {url} (OSC 52: in tmux, `set -g set-clipboard on`).", markup=False)

    def action_clear(self) -> None:
        self.lab.receiver.deliveries.clear()
        self.refresh_rows()
        self._show_status()

    def action_back(self) -> None:
        self.app.pop_screen()
