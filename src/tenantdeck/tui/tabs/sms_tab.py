"""The SMS tab: the five SMS notification settings of one app, checked as you type by the draft's own model.

Why the token is special: ``twilioAuthToken`` is a secret and the draft lives in git, so it is only ever shown and
entered as its ``${ENV_VAR}`` reference. A literal typed here is passed to the session, which refuses it; the
refusal is shown under the field and the field goes back to the draft's reference. The field is masked while typed
(:class:`~tenantdeck.tui.widgets.secret_input.SecretInput`), so a literal typed by mistake is never on the screen.

A field is written on Enter or when it is left; leaving it with a value the model refuses writes nothing (the draft's
value comes back, with a notice). Escape with a pending edit takes it back; a second Escape leaves the app.
"""

from __future__ import annotations

from typing import Any

from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from tenantdeck.draft import extension_view as ev
from tenantdeck.draft import sms_view as sv
from tenantdeck.draft.session import ChangeKind
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener
from tenantdeck.tui.tabs.tab_refresh import RefreshWhenShown
from tenantdeck.tui.widgets.input_row import DONE, DoneInput, InputRow, done, leave_to_row
from tenantdeck.tui.widgets.quiet import update_static
from tenantdeck.tui.widgets.secret_input import SecretInput


class SmsTab(UsesEditor, DraftListener, RefreshWhenShown, VerticalScroll):
    """Each field is saved to the draft on Enter or when focus leaves it; ``ctrl+n`` adds settings, ``ctrl+r``
    removes them."""

    HELP = """\
## SMS

The app's SMS notification settings (the `sms-notification` extension). All five are required by the service.

- Type a value, then `Enter` or `Tab`: it is written to the draft and checked at once (the message shows under
  the field). `Enter` leaves the field for its row (the tab digits work again; `Enter` goes back in).
  `Escape` takes back what you typed; a second `Escape` leaves the app. Leaving a field with a value
  the model refuses writes nothing.
- **twilioAuthToken** is a secret: write it as `${ENV_VAR}` and set that variable where you push. A literal
  token is refused and never written. The field is masked; `ctrl+g` (or `F9`) shows what is typed.
- `Ctrl+N`: add SMS settings to an app that has none (the catalog's defaults; the token as a reference named
  after the app) · `Ctrl+R`: remove them (asks first) · `Ctrl+Z`: undo
"""
    BINDINGS = [
        Binding("ctrl+n", "add", "Add SMS", id="sms.add", tooltip="Add SMS settings with the catalog's defaults"),
        Binding("ctrl+r", "remove", "Remove SMS", id="sms.remove", tooltip="Remove the SMS settings (asks first)"),
        Binding("escape", "revert", "Undo typing", id="sms.revert",
                tooltip="Take back what was typed in the field: it shows the draft's value again"),
    ]
    DEFAULT_CSS = """
    SmsTab { height: 1fr; padding: 0 1; }
    SmsTab #sms-status { height: auto; color: $text-muted; }
    SmsTab #sms-empty { height: auto; margin: 1 0; }
    SmsTab .sms-row { height: 1; margin-top: 1; }
    SmsTab .sms-row:focus-within { background: $focus-row-background; }
    SmsTab .sms-row Label { width: 18; }
    SmsTab .sms-row Input { width: 1fr; }
    SmsTab .sms-help { height: auto; color: $text-muted; padding-left: 18; }
    SmsTab .sms-error { height: auto; color: $error; padding-left: 18; }
    SmsTab .sms-error.-warning { color: $warning; }
    """

    def __init__(self, app_index: int) -> None:
        super().__init__()
        self.app_index = app_index
        self._refused: dict[str, str] = {}

    @property
    def prefix(self) -> str:
        return f"apps[{self.app_index}].sms"

    def _settings(self) -> dict[str, Any] | None:
        value = self.editor.get(self.prefix, None)
        return value if isinstance(value, dict) else None

    def compose(self) -> ComposeResult:
        yield Static("", id="sms-status")
        with Vertical(id="sms-empty"):
            yield Label("This app has no SMS settings in the draft (the service's are left as they are).")
            yield Button("Add SMS settings (Ctrl+N)", id="sms-add", variant="primary")
        with Vertical(id="sms-fields"):
            for key, description in sv.sms_fields():
                with InputRow(classes="sms-row"):
                    yield Label(key)
                    kind = _DoneSecret if key == sv.TOKEN else DoneInput
                    yield kind(id=f"sms-{key}", compact=True, select_on_focus=False,
                               placeholder="${ENV_VAR}" if key == sv.TOKEN else description)
                masked = " Entered as its reference, masked (ctrl+g shows it)."
                yield Static(description + (masked if key == sv.TOKEN else ""),
                             classes="sms-help")
                yield Static("", id=f"sms-error-{key}", classes="sms-error", markup=False)

    def on_mount(self) -> None:
        self.refresh_fields()

    # -- rendering ---------------------------------------------------------------------------------------------

    def refresh_fields(self, *, keep_focused: bool = True, changed: frozenset[str] = frozenset()) -> None:
        """Show the draft's values; a focused field being typed in keeps its text unless ``changed`` names it."""
        settings = self._settings()
        app = self.editor.get(f"apps[{self.app_index}]", {}) or {}
        state = ev.state_of(app, "sms-notification")
        update_static(self.query_one("#sms-status", Static),
            f"The sms-notification extension is {state} in this draft." + (
                "" if state == ev.ENABLED else " SMS are only sent while it is enabled (Extensions tab)."))
        self.query_one("#sms-empty").display = settings is None
        self.query_one("#sms-fields").display = settings is not None
        if (settings is None) != getattr(self, "_had_none", None):  # what check_action answers for ctrl+n, ctrl+r
            self._had_none = settings is None
            self.refresh_bindings()
        if settings is None:
            return
        for key, _ in sv.sms_fields():
            field = self.query_one(f"#sms-{key}", Input)
            typing = keep_focused and field.has_focus and key not in changed
            if not (typing and field.value != sv.show_value(settings.get(key))):
                with field.prevent(Input.Changed):
                    field.value = sv.show_value(settings.get(key))
            self._show_problems(key)

    def _show_problems(self, key: str, typed: list[str] | None = None) -> None:
        """Under a field: a refusal, else what the model says of the typed text, else the draft's problems."""
        out = self.query_one(f"#sms-error-{key}", Static)
        if key in self._refused:
            text, warning = "Refused: " + self._refused[key], False
        elif typed:
            text, warning = "\n".join(typed), False
        else:
            problems = self.editor.problems_at(f"{self.prefix}.{key}")
            text = "\n".join(p.message for p in problems)
            warning = bool(problems) and not any(p.is_error for p in problems)
        update_static(out, text)
        out.set_class(warning, "-warning")
        out.display = bool(text)

    def on_draft_changed(self, message: DraftChanged) -> None:
        if not message.touches(f"apps[{self.app_index}]"):
            return
        keys = {k for k, _ in sv.sms_fields()}
        change = message.change
        if change.kind in (ChangeKind.UNDO, ChangeKind.REDO, ChangeKind.RELOAD, ChangeKind.TRANSACTION) or any(
                self.prefix == p or self.prefix.startswith(p + ".") or self.prefix.startswith(p + "[")
                for p in change.paths):
            changed = frozenset(keys)
        else:
            changed = frozenset(p[len(self.prefix) + 1:] for p in change.paths if p.startswith(self.prefix + "."))
        self.refresh_or_defer(lambda: self.refresh_fields(changed=changed))

    def refresh_content(self) -> None:
        self.refresh_fields(changed=frozenset(k for k, _ in sv.sms_fields()))

    # -- editing -----------------------------------------------------------------------------------------------

    def _key_of(self, widget: Input) -> str | None:
        wid = widget.id or ""
        return wid[len("sms-"):] if wid.startswith("sms-") else None

    def on_input_changed(self, event: Input.Changed) -> None:
        key = self._key_of(event.input)
        settings = self._settings()
        if key is None or settings is None:
            return
        self._refused.pop(key, None)
        self._show_problems(key, sv.field_problems(settings, key, sv.parse_value(key, event.value)))
        self._pending_changed()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._commit(event.input)

    def field_done(self, field: Input) -> None:
        """Enter writes the field and leaves it for its row (tui/widgets/input_row.py); a value the draft refuses
        keeps the cursor in the field, under the reason."""
        self._commit(field)
        key = self._key_of(field)
        if key is not None and key not in self._refused and isinstance(field.parent, InputRow):
            leave_to_row(field.parent)

    def on_descendant_blur(self, event: Any) -> None:
        if isinstance(event.widget, Input):
            self._commit(event.widget, leaving=True)

    def focus_path(self, path: str) -> bool:
        """Focus the field of ``apps[i].sms.<key>`` (the first field for ``apps[i].sms``), scrolled into view."""
        if path != self.prefix and not path.startswith(self.prefix + "."):
            return False
        if self._settings() is None:
            self.query_one("#sms-add", Button).focus()
            return True
        key = path[len(self.prefix) + 1:].split(".", 1)[0].split("[", 1)[0] or sv.sms_fields()[0][0]
        if key not in {k for k, _ in sv.sms_fields()}:
            key = sv.sms_fields()[0][0]
        field = self.query_one(f"#sms-{key}", Input)
        from tenantdeck.tui.widgets.focus import scroll_into_view

        field.focus(scroll_visible=False)
        scroll_into_view(self, field)
        return True

    def _pending(self) -> bool:
        """The focused field holds text that is not the draft's value."""
        field = self.app.focused if self.is_mounted else None
        settings = self._settings() if field is not None else None
        key = self._key_of(field) if isinstance(field, Input) else None
        return (isinstance(field, Input) and key is not None and settings is not None
                and field.value != sv.show_value(settings.get(key)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape is "Undo typing" only while something is typed; otherwise the footer shows the screen's Escape.
        ctrl+n (add) only for an app without SMS settings, ctrl+r (remove) only for one with them: the footer
        offered "Add SMS" on an app that had them, where the key only says so (a docs-only trial, F19)."""
        if action == "revert":
            return self._pending()
        if action in ("add", "remove"):
            has = self.is_mounted and self._settings() is not None
            return has if action == "remove" else not has
        return True

    def _pending_changed(self) -> None:
        pending = self._pending()
        if pending != getattr(self, "_was_pending", False):
            self._was_pending = pending
            self.refresh_bindings()

    def action_revert(self) -> None:
        """Escape: the focused field shows the draft's value again; with nothing typed, Escape leaves the app."""
        field = self.app.focused
        settings = self._settings()
        key = self._key_of(field) if isinstance(field, Input) else None
        if key is None or settings is None or not isinstance(field, Input):
            raise SkipAction()
        in_draft = sv.show_value(settings.get(key))
        if field.value == in_draft:
            raise SkipAction()
        self._refused.pop(key, None)
        with field.prevent(Input.Changed):
            field.value = in_draft
        self._show_problems(key)
        self._pending_changed()

    def _commit(self, field: Input, *, leaving: bool = False) -> None:
        key = self._key_of(field)
        settings = self._settings()
        if key is None or settings is None:
            return
        value = sv.parse_value(key, field.value)
        if settings.get(key) == value and key in settings:
            return
        typed = sv.field_problems(settings, key, value) if leaving else []
        if typed:
            with field.prevent(Input.Changed):
                field.value = sv.show_value(settings.get(key))
            self._show_problems(key)
            what = "the typed token" if key == sv.TOKEN else repr(sv.show_value(value))
            self.notify(f"{key}: {what} not written ({typed[0]}); the field shows the draft's value again. Enter "
                        "writes a value as typed.", title="Not written", severity="warning", markup=False)
            self._pending_changed()
            return
        outcome = self.editor.set(f"{self.prefix}.{key}", value)
        if not outcome.ok:
            self._refused[key] = outcome.refused
            self.notify(outcome.refused, title=f"{key} not changed", severity="error", markup=False)
            with field.prevent(Input.Changed):
                field.value = sv.show_value(settings.get(key))
        else:
            self._refused.pop(key, None)
        self._show_problems(key)
        self._pending_changed()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "sms-add":
            event.stop()
            self.action_add()

    def action_add(self) -> None:
        if self._settings() is not None:
            self.notify("This app already has SMS settings.", markup=False)
            return
        name = self.editor.get(f"apps[{self.app_index}].name", "") or ""
        outcome = self.editor.set(self.prefix, sv.new_settings(str(name)))
        if not outcome.ok:
            self.notify(outcome.refused, title="Not added", severity="error", markup=False)
            return
        self.refresh_fields(keep_focused=False)
        self.query_one("#sms-twilioAccountSid", Input).focus()
        self.notify("SMS settings added with the catalog's defaults: fill in the Twilio account SID, and set the "
                    "token's variable where you push.", markup=False)

    def action_remove(self) -> None:
        if self._settings() is None:
            self.notify("This app has no SMS settings.", markup=False)
            return
        from tenantdeck.tui.widgets.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            outcome = self.editor.delete(self.prefix)
            if not outcome.ok:
                self.notify(outcome.refused, title="Not removed", severity="error", markup=False)
            else:
                self._refused.clear()
                self.notify("SMS settings removed from the draft (Ctrl+Z undoes).", markup=False)

        self.app.push_screen(ConfirmScreen("Remove this app's SMS settings from the draft? A push then leaves the "
                                           "service's SMS settings as they are.", yes="Remove"), answered)


class _DoneSecret(SecretInput):
    """The token's masked field, whose footer says Enter leaves it, as every SMS field's does."""

    BINDINGS = [DONE]

    def action_done(self) -> None:
        done(self)
