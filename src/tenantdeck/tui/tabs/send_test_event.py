"""Send test event (``t`` on the Webhooks tab): pick a trigger, POST its sample delivery to the webhook's URL.

Why: an admin wants to see their own receiver take what the service will send before pushing. The sending is
core (:mod:`tenantdeck.events_send`: URL rule, Basic Auth from the ``${ENV_VAR}``, typed errors); this modal only
offers the triggers (the webhook's own first, then every known one by category), runs the send in a worker so
the UI never waits on the network, and shows the answer: status, latency and the body (printable, cut).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tenantdeck.events_send import Endpoint, SendError, SendResult, send_test_event, trigger_choices
from tenantdeck.models.secrets import reference_name
from tenantdeck.textsafe import shown
from tenantdeck.tui.host import host_of
from tenantdeck.tui.widgets.footer import KeyFooter


def result_text(result: SendResult) -> Text:
    """The answer as the modal shows it (also what the tests read)."""
    style = "bold green" if result.ok else "bold red"
    auth = "with Basic Auth" if result.with_auth else "without Basic Auth"
    # the receiver's words (reason, content type, body) are someone else's data
    out = Text.assemble((shown(f"{result.status} {result.reason}".strip()), style),
                        f" in {result.latency_ms:.0f} ms · {shown(result.trigger)}, {result.sent_bytes} B sent "
                        f"{auth}\n")
    kind = f" ({shown(result.content_type)})" if result.content_type else ""
    out.append(f"Body{kind}:\n", style="bold")
    out.append(shown(result.body, newlines=True) or "(empty)")
    if result.truncated:
        out.append("\n… (cut)", style="dim")
    return out


class SendTestEvent(ModalScreen[None]):
    """Enter sends the highlighted trigger (again and again, each a new request); Escape closes."""

    HELP = """\
## Send test event

Posts a sample delivery of the chosen trigger (generated from the event models, as the service would send it) to
this webhook's URL, with its Basic Auth when it has one (the password read from its `${VAR}` now; never shown).
The answer's status, latency and body are shown below the list. Https URLs, or plain http to a loopback host such
as the Events screen's receiver (F3), which a send to its address starts when it is not listening yet.

- `Enter`: send the highlighted trigger · `F3`: the Events screen · `Escape`: close
"""
    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="send_test.close"),
        Binding("f3", "events", "Events", id="send_test.events", tooltip="Close, and show the Events screen"),
    ]
    DEFAULT_CSS = """
    SendTestEvent { align: center middle; }
    SendTestEvent > Vertical { width: 96; max-width: 100%; height: 90%; border: thick $primary;
                               background: $surface; padding: 0 1; }
    SendTestEvent #st-head { height: auto; }
    SendTestEvent OptionList { height: 1fr; min-height: 4; }
    SendTestEvent #st-scroll { height: 1fr; min-height: 4; border-top: solid $primary; }
    """

    def __init__(self, hook: dict[str, Any], target: Endpoint, *, app_id: str, region: str,
                 **send_options: Any) -> None:
        super().__init__()
        self.hook = hook
        self.target = target
        self.app_id, self.app_region = app_id, region
        #: extra arguments of ``send_test_event`` (``transport``, ``clock``): pictures that need no network or time
        self.send_options = send_options
        self.result: SendResult | None = None
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._head(), id="st-head")
            options: list[Option | None] = []
            for category, ids in trigger_choices(self.hook.get("triggers")):
                options.append(Option(Text(category, style="bold"), disabled=True))
                options += [Option(f"  {t}", id=f"{len(options)}:{t}") for t in ids]
            yield OptionList(*options, id="st-triggers")
            with VerticalScroll(id="st-scroll"):
                yield Static(Text("Nothing sent yet.", style="dim"), id="st-result")
        yield KeyFooter()

    def _head(self) -> Text:
        hook_id = str(self.hook.get("id", "?"))
        head = Text.assemble(("Send a test event", "bold"), f" · webhook {shown(hook_id)} → {shown(self.target.url)}\n")
        password = self.hook.get("password")
        var = reference_name(password) if isinstance(password, str) else None
        if self.target.auth is not None:
            source = f" (password from ${{{var}}})" if var else " (password written in the draft)"
            head.append(f"Basic Auth as {shown(str(self.target.username))}{shown(source)}")
        else:
            head.append("No Basic Auth")
        head.append("\nEnter sends the highlighted trigger · F3 Events screen · Escape closes", style="dim")
        return head

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        first = next((i for i in range(options.option_count) if not options.get_option_at_index(i).disabled), None)
        if first is not None:
            options.highlighted = first

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        trigger = (event.option.id or "").split(":", 1)[-1]
        if trigger:
            self.send(trigger)

    def action_events(self) -> None:
        self.dismiss()
        host_of(self.app).action_events()

    @work(exclusive=True, group="send-test", exit_on_error=False)
    async def send(self, trigger: str) -> None:
        result = self.query_one("#st-result", Static)
        result.update(Text(f"Sending {shown(trigger)} to {shown(self.target.url)} …", style="dim"))
        self.result, self.error = None, None
        started = await host_of(self.app).event_lab.start_for(self.target.url)
        if started:
            self.notify(started, title="Receiver", timeout=15, markup=False)
        try:
            self.result = await send_test_event(self.target, trigger, app_id=self.app_id, region=self.app_region,
                                                webhook_id=str(self.hook.get("id", "samplehook")),
                                                **self.send_options)
        except SendError as exc:
            self.error = f"Not delivered: {exc}."
        except Exception as exc:  # never a traceback on screen: a sender bug is still one plain line
            self.error = f"Not delivered: {type(exc).__name__}: {exc}."
        if self.error is not None:
            result.update(Text(shown(self.error), style="bold red"))
            self.notify(self.error, title="Send test event", severity="error", markup=False)
            return
        if self.result is None:
            return
        result.update(result_text(self.result))
        if not self.result.ok:
            self.notify(f"The receiver answered {self.result.status} {self.result.reason}.",
                        title="Send test event", severity="warning", markup=False)
