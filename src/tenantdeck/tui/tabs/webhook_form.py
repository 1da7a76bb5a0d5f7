"""A modal form that adds or edits one webhook, checked as you type by the draft's own model and rules.

Why a form and not in-place cells: a webhook's fields depend on each other (Basic Auth needs a username and a
password; a new id follows a rule an existing one may break), so the form checks the whole candidate with
:func:`tenantdeck.draft.webhook_view.check_webhook` and shows each message under its field. Nothing reaches the
draft until the form is saved; the form then dismisses with the new webhook (only the fields that are set) and
the Webhooks tab turns it into edits.

Write-only fields the draft leaves out show "not set in the draft (left as it is on the service)" and stay out of
the result unless the user sets them. The password is entered as a ``${ENV_VAR}`` reference only, in a masked
field (:class:`~tenantdeck.tui.widgets.secret_input.SecretInput`): a literal typed by mistake is refused, and never
shown.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widgets import Button, Input, Label, Select, SelectionList, Static
from textual.widgets.selection_list import Selection

from tenantdeck.draft import webhook_view as wv
from tenantdeck.models.secrets import is_reference
from tenantdeck.textsafe import fitted, json_text
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.secret_input import SecretInput

_HEADING = "\x00"  #: values of the category headings in the trigger list start with this (never a trigger id)
TEXT_FIELDS = ("id", "name", "webhookURL", "username", "password")


def _flag_choices(key: str, new: bool) -> list[tuple[str, str]]:
    unset = (f"not set (a new webhook gets {'yes' if wv.CREATE_DEFAULTS.get(key) else 'no'})" if new
             else wv.NOT_SET)
    return [(unset, "unset"), ("yes", "yes"), ("no", "no")]


class TriggerList(SelectionList[str]):
    """The trigger ids under category headings (not selectable); Space toggles the highlighted one.

    Each line says ``[x]`` or ``[ ]`` in text rather than by colour alone, so the state reads with ``NO_COLOR``
    and in a plain capture; the widget's own check-box gutter is therefore not drawn.
    """

    HELP = """\
## Triggers

The trigger ids that fire this webhook, grouped by category. `Space` toggles the highlighted one; type in the
filter above to narrow the list (by id or category): in the filter too, `Space` toggles the highlighted trigger and
`Up`/`Down` move the highlight. A trigger the catalog does not know that the webhook
already has is listed last, under "not in the catalog", and kept.
"""

    def render_line(self, y: int) -> Strip:
        return super(SelectionList, self).render_line(y)

    def _get_left_gutter_width(self) -> int:
        return 0


class TriggerFilter(Input):
    """The filter above the trigger list. Trigger ids and categories hold no space, so Space here toggles the
    trigger highlighted below, as the heading says, and Up/Down move that highlight: filter, then pick, without
    leaving the field."""

    async def _on_key(self, event: events.Key) -> None:
        if event.key in ("space", "up", "down"):
            event.stop()
            event.prevent_default()
            box = self.screen.query_one(TriggerList)
            if event.key == "space":
                if box.highlighted is not None:
                    box.action_select()
            else:
                box.action_cursor_down() if event.key == "down" else box.action_cursor_up()
            return
        await super()._on_key(event)


class WebhookForm(ModalScreen[dict[str, Any] | None]):
    """Dismisses with the webhook's data (only the fields that are set) or None (Escape)."""

    HELP = """\
## Webhook

Every field is checked as you type, with the same rules the draft's validation uses; a message under a field
says what is wrong (red) or worth knowing (yellow). The form cannot be saved while a field has an error.

- **id**: a new webhook's id is letters and digits, at most 50, unique in the app. An existing id the service
  holds outside that rule is kept as it is.
- **URL**: https (plain http only to a loopback host, with a warning), at most 255 characters.
- **Basic Auth**: when on, the username (letters and digits) and the password are both required. The password
  is entered as an `${ENV_VAR}` reference, never as a value; the field is masked, `ctrl+g` (or `F9`) shows it.
- Fields the service never reports (Basic Auth, username, password, retry) may be *not set in the draft*: they
  are then left as they are on the service, and written only when you set them.

Keys: `Tab` / `Shift+Tab` move between fields · `Enter` in a field or `F2` saves the webhook to the draft ·
`Escape` cancels.
"""
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="webhook_form.cancel"),
        Binding("f2", "save", "Save webhook", id="webhook_form.save", priority=True,
                tooltip="Check the form and write the webhook to the draft"),
    ]
    DEFAULT_CSS = """
    WebhookForm { align: center middle; }
    WebhookForm > Vertical {
        width: 100; max-width: 100%; height: 100%; max-height: 44; border: thick $primary; background: $surface;
    }
    WebhookForm #wf-title { height: 1; padding: 0 1; text-style: bold; }
    WebhookForm VerticalScroll { height: 1fr; padding: 0 1; }
    WebhookForm .wf-row { height: 1; margin-top: 1; }
    WebhookForm .wf-row:focus-within { background: $focus-row-background; }
    WebhookForm .wf-row > Label { width: 14; }
    WebhookForm .wf-row > Input, WebhookForm .wf-row > Select { width: 1fr; }
    WebhookForm .wf-msg { height: auto; padding-left: 14; color: $error; }
    WebhookForm .wf-msg.-warning { color: $warning; }
    WebhookForm .wf-note { height: auto; padding-left: 14; color: $text-muted; }
    WebhookForm #wf-triggers-head { height: 1; margin-top: 1; }
    WebhookForm TriggerList { height: 12; }
    WebhookForm #wf-buttons { height: 1; margin-top: 1; align-horizontal: right; }
    WebhookForm #wf-buttons Button { margin-left: 2; }
    WebhookForm.-short .wf-row, WebhookForm.-short #wf-triggers-head { margin-top: 0; }
    WebhookForm.-short TriggerList { height: 7; }
    """
    #: below this many rows the form drops the blank line between fields, so that at 80x24 the triggers (heading,
    #: filter and a few of them) are on screen without scrolling
    SHORT = 32

    def __init__(
        self,
        original: Mapping[str, Any] | None,
        *,
        other_ids: Collection[str],
        app_name: str,
        focus_key: str | None = None,
    ) -> None:
        super().__init__()
        #: the field the form opens on (a problem or palette entry names it); else the first one to fill in
        self.focus_key = focus_key
        self.original = dict(original) if original is not None else None
        self.other_ids = set(other_ids)
        self.app_name = app_name
        start = self.original or {}
        triggers = start.get("triggers")
        self.chosen: list[str] = [t for t in triggers if isinstance(t, str)] if isinstance(triggers, list) else []
        self.problems: dict[str, list[wv.FieldProblem]] = {}
        password = start.get("password")
        #: a literal password the draft holds: never shown, kept unless replaced (the form then asks for a reference)
        #: fields whose problems are shown: all of them when editing; on a new form, those typed in (or all after
        #: a save was tried), so an empty form does not open in red
        self._shown: set[str] | None = None if original is not None else set()
        self._hidden_password = password if isinstance(password, str) and not is_reference(password) else None

    @property
    def is_new(self) -> bool:
        return self.original is None

    # -- layout ------------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        start = self.original or {}
        title = "New webhook" if self.is_new else f"Edit webhook {start.get('id', '?')!s}"
        with Vertical():
            yield Static(title, id="wf-title", markup=False)
            with VerticalScroll():
                yield from self._text_row("id", "Id", start, "letters and digits, at most 50, unique in the app")
                yield from self._text_row("name", "Name", start, "at most 50 characters")
                yield from self._text_row("webhookURL", "URL", start, "https://... (at most 255 characters)")
                yield from self._flag_row("enabled", "Enabled", start)
                yield from self._flag_row("retryOnFailure", "Retry", start)
                yield from self._flag_row("useBasicAuth", "Basic Auth", start)
                suggestion = wv.password_reference(self.app_name, str(start.get("id", "")))
                yield from self._text_row("username", "Username", start, self._unset_hint("letters and digits"))
                yield from self._text_row("password", "Password", start, self._unset_hint(suggestion))
                yield Static(f"Password: an ${{ENV_VAR}} reference only, such as {suggestion}; set the variable "
                             "where you push.", id="wf-password-note", classes="wf-note", markup=False)
                yield Label("", id="wf-triggers-head")
                yield TriggerFilter(placeholder="Filter triggers: id or category (messages, users, groups, ...)",
                                    id="wf-filter", compact=True)
                yield TriggerList(id="wf-triggers", compact=True)
                yield Static("", id="wf-msg-triggers", classes="wf-msg", markup=False)
            with Horizontal(id="wf-buttons"):
                yield Button("Save (F2)", id="wf-save", variant="primary", compact=True)
                yield Button("Cancel (Esc)", id="wf-cancel", compact=True)
        yield KeyFooter()

    def _unset_hint(self, hint: str) -> str:
        return hint if self.is_new else wv.NOT_SET

    def _text_row(self, key: str, label: str, start: Mapping[str, Any], hint: str) -> ComposeResult:
        value = start.get(key)
        if key == "password" and self._hidden_password is not None:
            value, hint = None, "the draft holds a literal password (hidden): replace it with an ${ENV_VAR} reference"
        kind = SecretInput if key == "password" else Input
        with Horizontal(classes="wf-row"):
            yield Label(label)
            # never selected as it takes the focus (Textual's default): a key typed next would replace the whole
            # value (a Space after a problem's jump wiped the name: trial J, J8); the editor's other fields do the same
            yield kind("" if value is None else str(value), placeholder=hint, id=f"wf-{key}", compact=True,
                       select_on_focus=False)
        yield Static("", id=f"wf-msg-{key}", classes="wf-msg", markup=False)

    def _flag_row(self, key: str, label: str, start: Mapping[str, Any]) -> ComposeResult:
        value = start.get(key)
        choices = _flag_choices(key, self.is_new)
        if value is None or isinstance(value, bool):
            current = "unset" if value is None else "yes" if value is True else "no"
        else:  # written by hand as neither (`enabled: "maybe"`): shown as written and kept until a choice is made
            current = "held"
            choices.append((fitted(f"as written: {json_text(value)} (not yes or no)", 40), "held"))  # json_text: safe
        with Horizontal(classes="wf-row"):
            yield Label(label)
            yield Select(choices, value=current, allow_blank=False, id=f"wf-{key}", compact=True)
        yield Static("", id=f"wf-msg-{key}", classes="wf-msg", markup=False)

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.height < self.SHORT, "-short")

    def on_mount(self) -> None:
        self.set_class(self.app.size.height < self.SHORT, "-short")
        self._fill_triggers()
        self.check()
        self._opened_with = self.values()
        keys = (*TEXT_FIELDS, *wv.FLAGS)
        if self.focus_key == "triggers":
            self.query_one(TriggerList).focus()
        elif self.focus_key in keys:
            self.query_one(f"#wf-{self.focus_key}").focus()
        else:
            self.query_one("#wf-id" if self.is_new else "#wf-name", Input).focus()

    # -- triggers ----------------------------------------------------------------------------------------------

    def _fill_triggers(self) -> None:
        box = self.query_one(TriggerList)
        highlighted = box.highlighted
        text = self.query_one("#wf-filter", Input).value
        options: list[Selection[str]] = []
        for category, items in wv.trigger_groups(self.chosen, text):
            on = sum(chosen for _, chosen in items)
            heading = Text(f"{category} ({on} of {len(items)} chosen)", style="bold")
            options.append(Selection(heading, _HEADING + category, False, disabled=True))
            options += [Selection(Text(f"  [{'x' if chosen else ' '}] {t}"), t, chosen) for t, chosen in items]
        with box.prevent(SelectionList.SelectedChanged):
            box.clear_options()
            box.add_options(options)
        if options:
            first = next((i for i, o in enumerate(options) if not o.disabled), None)
            box.highlighted = highlighted if highlighted is not None and highlighted < len(options) and \
                not options[highlighted].disabled else first
        self.query_one("#wf-triggers-head", Label).update(
            f"Triggers: {len(self.chosen)} chosen · type below to filter · Space toggles")

    def on_selection_list_selection_toggled(self, event: SelectionList.SelectionToggled[str]) -> None:
        event.stop()
        trigger = str(event.selection.value)
        if trigger.startswith(_HEADING):
            return
        if trigger in self.chosen:
            self.chosen.remove(trigger)
        else:
            self.chosen.append(trigger)
        self._touch("wf-triggers")
        self._fill_triggers()
        self.check()

    # -- checking ----------------------------------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """The form's values: text as typed (stripped), flags True/False/None, triggers as chosen."""
        out: dict[str, Any] = {}
        for key in TEXT_FIELDS:
            text = self.query_one(f"#wf-{key}", Input).value
            out[key] = text if key == "name" else text.strip()
        if not out["password"] and self._hidden_password is not None:
            out["password"] = self._hidden_password
        for key in wv.FLAGS:
            value = self.query_one(f"#wf-{key}", Select).value
            # "held": the value the draft has, neither yes nor no: checked (and refused) as it is, never made "no"
            held = (self.original or {}).get(key)
            out[key] = held if value == "held" else None if value == "unset" else value == "yes"
        out["triggers"] = list(self.chosen)
        return out

    def check(self) -> dict[str, list[wv.FieldProblem]]:
        self.problems = wv.check_webhook(self.values(), original=self.original, other_ids=self.other_ids)
        for key in (*TEXT_FIELDS, *wv.FLAGS, "triggers"):
            box = self.query_one(f"#wf-msg-{key}", Static)
            msgs = self.problems.get(key, []) if self._shown is None or key in self._shown else []
            box.update("\n".join(m.message for m in msgs))
            box.set_class(bool(msgs) and not any(m.is_error for m in msgs), "-warning")
            box.display = bool(msgs)
        return self.problems

    def _touch(self, widget_id: str | None) -> None:
        if self._shown is not None and widget_id and widget_id.startswith("wf-"):
            self._shown.add(widget_id[3:])
            if widget_id == "wf-useBasicAuth":
                self._shown.update(("username", "password"))

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "wf-filter":
            self._fill_triggers()
            return
        self._touch(event.input.id)
        if event.input.id == "wf-id" and not self.original:
            suggestion = wv.password_reference(self.app_name, event.value)
            self.query_one("#wf-password", Input).placeholder = suggestion
            self.query_one("#wf-password-note", Static).update(
                f"Password: an ${{ENV_VAR}} reference only, such as {suggestion}; set the variable where you push.")
        self.check()

    def on_select_changed(self, event: Select.Changed) -> None:
        self._touch(event.select.id)
        self.check()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "wf-filter":
            self.query_one(TriggerList).focus()
            return
        self.action_save()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "wf-save":
            self.action_save()
        else:
            self.action_cancel()

    # -- result ------------------------------------------------------------------------------------------------

    def action_save(self) -> None:
        self._shown = None
        problems = self.check()
        if wv.has_errors(problems):
            keys = (*TEXT_FIELDS, *wv.FLAGS, "triggers")
            first = next((k for k in keys if any(p.is_error for p in problems.get(k, []))), "id")
            target = self.query_one(TriggerList) if first == "triggers" else self.query_one(f"#wf-{first}")
            target.focus()
            self.notify("Fix the fields marked in red first.", title="Webhook not saved", severity="error")
            return
        self.dismiss(wv.candidate(self.values()))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def unsaved_input(self) -> str | None:
        """What quitting now would lose that the draft does not hold yet (the app asks before it quits)."""
        opened = getattr(self, "_opened_with", None)
        return "the webhook form's fields" if opened is not None and self.values() != opened else None
