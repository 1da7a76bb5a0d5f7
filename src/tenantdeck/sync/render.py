"""Plans for humans and machines: Terraform-style text, markdown for a review, versioned JSON.

Text and markdown show only what changes, each field under its catalog label with the raw key beside it, and fold
the rest into one "(41 unchanged settings)" line. A secret never shows: its change reads "will rotate"
(:mod:`tenantdeck.sync.types` replaced the values before they got here).

Names, ids, labels, values and messages come from the draft and the service: each line is passed through
:func:`tenantdeck.textsafe.shown` as it is built, so a name cannot move the cursor, set the clipboard or forge a line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from tenantdeck.models import catalog
from tenantdeck.sync.kinds import STEPS, kind_of_step, step_kind
from tenantdeck.sync.plan import Plan
from tenantdeck.sync.types import ABSENT, Conflict, FieldChange, Step
from tenantdeck.textsafe import cell_width, fitted, json_text, shortened, shortened_runs, shown

_TRIGGERS = frozenset(catalog.TRIGGER_IDS)
SYMBOL = {"create": "+", "update": "~", "delete": "-"}
VERB = {name: spec.verb for name, (_, spec) in STEPS.items()}


def action(op: Step) -> str:
    if op.destructive:
        return "delete"
    return "create" if step_kind(op.kind).symbol == "create" else "update"


def step_symbol(op: Step) -> str:
    """The one symbol of a step, wherever a plan is shown (the CLI's text and markdown, the editor's review)."""
    return SYMBOL[action(op)]


def step_label(op: Step, *, app_named: bool = False) -> str:
    """How every screen names one step: the kind's verb, then the resource's title, said once
    (``update widget "Support" (w-1)``, ``add triggers of webhook chatlog``): the CLI's plan, the review and the
    push summary use this, so none spells ``update widget widget``. ``app_named``: the line already names the app
    (a review row, a summary row), so the app's own steps say only ``create app``."""
    verb = VERB[op.kind]
    if app_named and kind_of_step(op.kind).section is None:
        return verb
    return shown(f"{verb} {op.resource}")


def value_text(value: Any) -> str:
    if value is ABSENT or value is None:
        return "(none)"
    if isinstance(value, dict) and value.get("unknown") is True:
        return "(not reported by the service)"  # a write-only field tenantdeck never pushed
    return shown(shortened(_JSON_CONTROL.sub(r"\1\\x\2", json.dumps(value, ensure_ascii=False))))  # JSON keeps it whole


#: a control character JSON wrote as ``\u001b``: shown as every other screen shows it (``\x1b``, textsafe.shown), so
#: one value is not spelled two ways on one screen (a webhook's title and its name's change); an escaped backslash
#: before the ``u`` (``\\u001b``, the value's own text) is left alone
_JSON_CONTROL = re.compile(r"(?<!\\)((?:\\\\)*)\\u00([01][0-9a-f])")


def change_text(change: FieldChange) -> str:
    """One changed field, on one line safe for a terminal."""
    return shown(_change_text(change))


def _change_text(change: FieldChange) -> str:
    label, where, before, after = _change_parts(change)
    if not after:
        return label
    return f"{label}{where}: " + (f"{before} -> " if before is not None else "") + after


def _change_parts(change: FieldChange) -> tuple[str, str, str | None, str]:
    """(label, `` (path)``, the old value or None, the new value: "" when the label says it all)."""
    if change.path in _TRIGGERS and change.label == f"Trigger {change.path}":
        return change.label, "", None, ""
    where = f" ({change.path})" if change.path and change.path != change.label else ""
    if change.secret:
        return change.label, where, None, str(change.after)
    if change.before is ABSENT or change.before is None:
        return change.label, where, None, value_text(change.after)
    if change.after is ABSENT or change.after is None:
        return change.label, where, value_text(change.before), "(removed)"
    return change.label, where, value_text(change.before), value_text(change.after)


def change_text_fitted(change: FieldChange, width: int) -> str:
    """:func:`change_text` in ``width`` terminal cells (a review or pull row at 80 columns): the path goes first,
    then the old value is cut; the new value stays whole unless it alone is too long, and every cut ends in ``…``
    (:func:`tenantdeck.textsafe.fitted`). The old way cut the row's end: the new value was what was lost."""
    full = change_text(change)
    if cell_width(full) <= width:
        return full
    label, where, before, after = (shown(part) if part is not None else None for part in _change_parts(change))
    assert label is not None and after is not None
    if not after:
        return fitted(label, width)
    arrow = " -> " if before is not None else ""
    heads = (f"{label}{where}: ", f"{label}{' (…)' if where else ''}: ")  # the path goes first, marked
    for head in heads:  # both values whole
        if cell_width(head) + cell_width(arrow) + cell_width(before or "") + cell_width(after) <= width:
            return head + (before + arrow if before is not None else "") + after
    for head in heads:  # the old value cut (at least one character of it, and "…")
        fixed = cell_width(head) + cell_width(arrow) + cell_width(after)
        if before is not None and fixed + 2 <= width:
            return head + fitted(before, width - fixed) + arrow + after
    arrow = "… -> " if before is not None else ""
    room = width - cell_width(arrow) - cell_width(after) - 2  # ": "
    if room >= 4:  # the new value whole still: the label gives way (cut with "…" if need be), the path goes
        # (the "…" of the old value marks the cut; without one, the path's "(…)" does)
        return fitted(label if before is not None or not where else f"{label} (…)", room) + ": " + arrow + after
    label_part = heads[1][:-2]  # the ": " stays whole: a cut label glued to its value read as one word
    head = fitted(label_part, max(1, min(cell_width(label_part), width // 3 - 2))) + ": "
    return head + arrow + fitted(after, max(1, width - cell_width(head) - cell_width(arrow)))


def change_symbol(change: FieldChange) -> str:
    if change.before is ABSENT or change.before is None:
        return "+"
    if change.after is ABSENT or change.after is None:
        return "-"
    return "~"


def shown_changes(op: Step) -> tuple[list[FieldChange], int]:
    """The changes worth a line, and how many are folded. A new widget lists only what differs from defaults."""
    if not step_kind(op.kind).folds_defaults:
        return op.changes, op.unchanged
    defaults = kind_of_step(op.kind).defaults
    shown = [c for c in op.changes if c.path == "name" or defaults.get(c.path, ABSENT) != c.after]
    return shown, len(op.changes) - len(shown)


def folded_text(op: Step, folded: int) -> str:
    """The one line that stands for the changes :func:`shown_changes` left out."""
    noun = f"setting{'s' if folded != 1 else ''}"
    if step_kind(op.kind).folds_defaults:
        return f"({folded} {noun} at their defaults)"
    return f"({folded} unchanged {noun})"


def summary_line(plan: Plan) -> str:
    counts = plan.counts()
    text = f"Plan: {counts['create']} to create, {counts['update']} to update, {counts['delete']} to delete."
    if plan.skipped_deletions:
        text += f" {plan.skipped_deletions} deletion{'s' if plan.skipped_deletions != 1 else ''} skipped " \
                "(use --allow-delete)."
    refused = len(plan.refused)
    if refused:
        text += f" {refused} refused value{'s' if refused != 1 else ''} of the draft: fix them in the draft."
    if conflicts := len(plan.conflicts) - refused:
        text += f" {conflicts} conflict{'s' if conflicts != 1 else ''}: push refuses until they are settled."
    return text


def _by_app(ops: Iterable[Step]) -> dict[str, list[Step]]:
    out: dict[str, list[Step]] = {}
    for op in ops:
        out.setdefault(op.app_key, []).append(op)
    return out


def _app_heading(op: Step) -> str:
    return shown(shortened_runs(f'app "{op.app_name}" ({op.app_id or "new"})'))


def conflict_field(c: Conflict) -> str:
    """A field conflict's field and its three sides, as the CLI's plan and the editor's review both say it."""
    where = f" ({c.path})" if c.path else ""
    return (f"{c.label}{where}: base {side_text(c.base, c.secret)}, draft {side_text(c.draft, c.secret)}, "
            f"live {side_text(c.live, c.secret)}")


def _conflict_text(c: Conflict) -> str:
    if c.message:  # names from the draft or the service: a 5,000-character name is shortened, as values are
        return shown(shortened_runs(f'app "{c.app}" {c.resource}: {c.message}'))
    text = shown(shortened_runs(f'app "{c.app}" {c.resource}: {conflict_field(c)}'))
    key = shown(c.key)
    return text + (f"\n      settle with --take-mine {key} or --take-theirs {key}" if c.kind else "")


def side_text(value: Any, secret: bool) -> str:
    """One side of a conflict (base, draft or live): a secret's side is already a word ("set", "will rotate")."""
    return str(value) if secret else value_text(value)


def about(app: str, what: str) -> str:
    """``app "NAME" WHAT``, or ``WHAT`` alone for a line about no app (the policies file itself), never ``app ""``."""
    return f'app "{app}" {what}' if app else what


def _note_text(app: str, message: str) -> str:
    return f'app "{app}": {message}' if app else message


def _drift_text(d: FieldChange) -> str:
    where = about(d.app, d.resource)
    if not d.path:
        return shown(shortened_runs(f"{where}: {d.after}"))
    return shown(shortened_runs(f"{where}: {change_text(d)}"))


# -- text ---------------------------------------------------------------------------------------------------------


def render_text(plan: Plan, *, title: str = "") -> str:
    """Terraform-style plan text (what ``diff`` prints by default and ``push`` shows before asking)."""
    lines: list[str] = []
    if title:
        lines += [title, ""]
    if not plan.operations and not plan.conflicts and not plan.skipped_deletions:
        if plan.drift:
            lines.append("Nothing to push: the draft has no local change. The service changed since the base "
                         "(drift below); `tenantdeck pull` adopts it into the draft.")
        else:
            lines.append("No changes. The service matches the draft." if not plan.offline
                         else "No changes. The draft matches the base snapshot.")
    else:
        lines.append("Symbols: + create, ~ update, - delete")
    destructive = [op for op in plan.operations if op.destructive]
    if destructive:
        lines += ["", "Deletions (run first; --allow-delete was given):"]
        for app_ops in _by_app(destructive).values():
            lines.append(f"  # {_app_heading(app_ops[0])}")
            for op in app_ops:
                lines.extend(_op_lines(op))
    for app_ops in _by_app(op for op in plan.operations if not op.destructive).values():
        lines += ["", f"  # {_app_heading(app_ops[0])}"]
        for op in app_ops:
            lines.extend(_op_lines(op))
    if plan.drift:
        lines += ["", "Changed on the service since the base (drift; kept as it is, not overwritten):"]
        lines += [f"  ~ {_drift_text(d)}" for d in plan.drift]
    if invalid := plan.refused:
        lines += ["", "Refused (values of the draft a push cannot send; fix them in the draft):"]
        lines += [f"  ! {_conflict_text(c)}" for c in invalid]
    if conflicts := plan.settleable:
        lines += ["", "Conflicts (the draft and the service changed these differently since the base):"]
        lines += [f"  ! {_conflict_text(c)}" for c in conflicts]
    if plan.notes:
        lines += ["", "Notes:"]
        lines += [shown(f"  * {_note_text(n.app, n.message)}") for n in plan.notes]
    lines.append("")
    tail = summary_line(plan)
    if plan.unchanged_apps:
        tail += f" {plan.unchanged_apps} app{'s' if plan.unchanged_apps != 1 else ''} unchanged."
    lines.append(tail)
    return "\n".join(lines) + "\n"


def _op_lines(op: Step) -> list[str]:
    sym = step_symbol(op)
    if op.kind == "create_app":
        head = f"  {sym} create app \"{op.app_name}\""
    elif op.kind == "delete_app":
        head = f"  {sym} delete app \"{op.app_name}\" ({op.app_id})  # destroys the app and everything in it"
    else:
        head = f"  {sym} {step_label(op)}"
    out = [shown(head)]
    changes, folded = shown_changes(op)
    if op.kind == "delete_app":
        changes = []
    for change in changes:
        out.append(f"      {change_symbol(change)} {change_text(change)}")
    if folded:
        out.append(f"        {folded_text(op, folded)}")
    return out


# -- markdown -------------------------------------------------------------------------------------------------------


def _md(text: str, cell: bool = True) -> str:
    """One line of the document's own words: terminal-safe, ``|`` escaped in a table cell (only there: in a heading
    or a list item a code span shows the backslash as it is)."""
    text = shown(text.replace("\n", " "))
    return text.replace("|", "\\|") if cell else text


def _md_data(text: str, cell: bool = True) -> str:
    """A name, id or message that came from a draft or the service, as a code span: none of it is read as Markdown,
    HTML or an @mention where the document is posted (a pull request's comment rendered a widget named
    ``<img src=…>@octocat`` as an image and a mention: trial J, J18). The fence is longer than any run of
    backticks in the text, so a backtick cannot end the span early."""
    text = _md(text, cell)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    # a code span drops one space at each end when both ends have one (CommonMark): padded, " x " keeps its spaces
    # (trial L, L10); a backtick at an end needs the space to stay apart from the fence
    spaced = text[:1] == " " and text[-1:] == " " and text.strip(" ") != ""
    pad = " " if text.startswith("`") or text.endswith("`") or spaced else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_code(value: Any, secret: bool = False) -> str:
    text = str(value) if secret else value_text(value)
    return _md_data(text) if text != "(none)" else "—"


def render_markdown(plan: Plan, *, title: str = "tenantdeck plan") -> str:
    """A review-ready markdown document: one section per app, one table row per changed field."""
    counts = plan.counts()
    lines = [f"## {title}", "", f"**{counts['create']}** to create, **{counts['update']}** to update, "
             f"**{counts['delete']}** to delete" + (f", {plan.skipped_deletions} deletion(s) skipped "
             "(use `--allow-delete`)" if plan.skipped_deletions else "") + (f", **{len(plan.conflicts)} "
             "conflict(s)**" if plan.conflicts else "") + (f"; {plan.unchanged_apps} app(s) unchanged"
             if plan.unchanged_apps else "") + "."]
    if not plan.operations and not plan.conflicts:
        lines += ["", "Nothing to push; the service changed since the base (drift below)." if plan.drift
                  else "No changes."]
    ordered = [op for op in plan.operations if op.destructive] + [op for op in plan.operations if not op.destructive]
    for app_ops in _by_app(ordered).values():
        first = app_ops[0]
        lines += ["", f"### App {_md_data(first.app_name, False)} ({_md_data(first.app_id or 'new', False)})"]
        for op in app_ops:
            changes, folded = shown_changes(op)
            warn = " ⚠️ **destructive**" if op.destructive else ""
            what = "default" if step_kind(op.kind).folds_defaults else "unchanged"
            fold = f" — {folded} {what} setting(s) not shown" if folded else ""
            lines += ["", f"**{step_symbol(op)} {VERB[op.kind]}** {_md_data(op.resource, False)}{warn}{fold}"]
            if changes and op.kind != "delete_app":
                lines += ["", "| | Setting | Key | Before | After |", "|---|---|---|---|---|"]
                for c in changes:
                    lines.append(f"| {change_symbol(c)} | {_md(c.label)} | {_md_data(c.path)} | "
                                 f"{_md_code(c.before, c.secret)} | {_md_code(c.after, c.secret)} |")
    if plan.drift:
        lines += ["", "### Drift (changed on the service; kept)", "", "| App | Resource | Setting | Before | Now |",
                  "|---|---|---|---|---|"]
        for d in plan.drift:
            lines.append(f"| {_md_data(d.app)} | {_md_data(d.resource)} | {_md(d.label)} | "
                         f"{_md_code(d.before, d.secret)} | "
                         f"{_md_code(d.after, d.secret)} |")
    if plan.conflicts:
        lines += ["", "### Conflicts (push refuses)", "", "| App | Resource | Setting | Base | Draft | Live |",
                  "|---|---|---|---|---|---|"]
        for c in plan.conflicts:
            if c.message:
                lines.append(f"| {_md_data(c.app)} | {_md_data(c.resource)} | {_md_data(c.message)} | | | |")
            else:
                lines.append(f"| {_md_data(c.app)} | {_md_data(c.resource)} | {_md(c.label)} ({_md_data(c.path)}) | "
                             f"{_md_code(c.base, c.secret)} | {_md_code(c.draft, c.secret)} | "
                             f"{_md_code(c.live, c.secret)} |")
    if plan.notes:
        lines += ["", "### Notes", ""] + [f"- {_md_data(_note_text(n.app, n.message), False)}" for n in plan.notes]
    return "\n".join(lines) + "\n"


# -- json -------------------------------------------------------------------------------------------------------------


def render_json(plan: Plan) -> str:
    """Versioned JSON (``format_version``); the same document a saved plan holds, minus live snapshots."""
    return json_text(plan.to_json(with_snapshots=False), indent=2) + "\n"


def render(plan: Plan, fmt: str) -> str:
    if fmt == "json":
        return render_json(plan)
    if fmt == "markdown":
        return render_markdown(plan)
    return render_text(plan)
