"""Rules that span more than one object of a draft, checked after the models parse it.

Pydantic checks each object on its own; these need the whole draft: a widget that ``extends`` a preset is only
complete once merged with it, a toggle that needs an extension depends on the app's extension block, ids must be
unique within an app. Every problem carries a key path; :mod:`tenantdeck.draft` turns paths into line and column.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from tenantdeck.hosts import is_loopback_host
from tenantdeck.jsonlimits import BODY_MAX_BYTES
from tenantdeck.models import App, Draft, WidgetDraft, WidgetSettings, catalog
from tenantdeck.models.app import app_secret_values, setting_refused
from tenantdeck.models.base import Held, held_marks
from tenantdeck.models.effective import effective_sections
from tenantdeck.models.secrets import CREDENTIAL_VARS, is_reference, reference_name, secret_fields
from tenantdeck.models.widget import SECTION_MODELS, SECTIONS
from tenantdeck.problems import PathPart, Problem, Severity, did_you_mean, error, warning
from tenantdeck.sizelimits import app_size_problems, fast_size, widget_body_problem
from tenantdeck.textsafe import shown, unsafe

Converter = Callable[[ValidationError, tuple[PathPart, ...]], list[Problem]]
#: a widget body estimated under this is not measured again (:func:`tenantdeck.sizelimits.widget_body_problem`)
BODY_HALF = BODY_MAX_BYTES // 2


def basic_problems(exc: ValidationError, prefix: tuple[PathPart, ...] = ()) -> list[Problem]:
    """Plain conversion of a pydantic error; :mod:`tenantdeck.draft` supplies a richer one in the draft's words."""
    return [error(e["msg"], prefix + tuple(e["loc"]), code=e["type"]) for e in exc.errors(include_url=False)]


def merge_settings(preset: WidgetSettings | None, widget: WidgetDraft) -> dict[str, Any]:
    """The complete settings of ``widget`` as its draft writes them: the preset's values with the widget's
    overrides on top (:func:`merge_written`); the service fills in what neither writes."""
    return merge_written(preset.model_dump(mode="json", exclude_none=True) if preset else {}, widget.overrides())


def merge_written(preset: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``overrides`` (a widget's own settings, plain data) over ``preset`` (the preset's, plain data): each
    section's values the draft writes, by :func:`tenantdeck.models.effective.effective_sections` (the rule the
    editor, the Preview and the policies read), the other top-level keys (``name``, ``version``) the widget's over
    the preset's."""
    merged: dict[str, Any] = {**preset, **overrides}
    written = effective_sections(overrides, preset, defaults=False)
    for section in SECTIONS:
        if section in preset or section in overrides:  # a section neither writes stays missing (the models say so)
            merged[section] = written[section]
    return merged


def resolve_widget(draft: Draft, widget: WidgetDraft) -> WidgetSettings | None:
    """The widget's effective settings, or None when they are invalid (``check_draft`` says why)."""
    preset = draft.presets.get(widget.extends) if widget.extends else None
    if widget.extends and preset is None:
        return None
    try:
        return WidgetSettings.model_validate(merge_settings(preset, widget))
    except ValidationError:
        return None


def check_draft(draft: Draft, convert: Converter = basic_problems) -> list[Problem]:
    """Every cross-object problem of a parsed draft (errors and warnings), with key paths."""
    checker = WidgetChecker(draft.presets)
    problems = unique_names_and_ids(draft.apps)
    for name, preset in draft.presets.items():
        problems.extend(check_preset(name, preset))
    for i, app in enumerate(draft.apps):
        problems.extend(check_app(checker, app, ("apps", i), convert))
    return problems


def check_preset(name: str, preset: WidgetSettings) -> list[Problem]:
    """A preset's values outside the documented rules: errors, as a preset is the draft's own (the service never
    holds one), and every widget that extends it would send them."""
    problems = list(_held_problems(preset, ("presets", name), created=True))
    for section in SECTIONS:
        problems.extend(_held_problems(getattr(preset, section), ("presets", name, section), created=True))
    return problems


def unique_names_and_ids(apps: Sequence[App | None]) -> list[Problem]:
    """Apps that repeat an earlier app's name or id (``None`` stands for an app that did not parse)."""
    problems: list[Problem] = []
    seen_names: dict[str, int] = {}
    seen_ids: dict[str, int] = {}
    for i, app in enumerate(apps):
        if app is None:
            continue
        # An app with an id is identified by it; the service allows two apps of one name, and a pulled draft must
        # validate. Only apps without an id (to be created) are identified by name, so only they must differ.
        if app.id is None:
            if app.name in seen_names:
                problems.append(
                    error(
                        f"another app without an id (apps[{seen_names[app.name]}]) has the same name; names "
                        "identify apps that are not created yet, so they must be unique among them",
                        ("apps", i, "name"),
                        "duplicate_app_name",
                    )
                )
            seen_names.setdefault(app.name, i)
        if app.id is not None:
            if app.id in seen_ids:
                problems.append(
                    error(f"apps[{seen_ids[app.id]}] has the same id", ("apps", i, "id"), "duplicate_app_id")
                )
            seen_ids.setdefault(app.id, i)
    return problems


class WidgetChecker:
    """Validates widgets against their presets, remembering the outcome per preset and set of overrides.

    A fleet's widgets extend one preset and differ in little more than their name, so validating each merged
    widget (about 70 values) again and again repeats the same work: 1,000 such widgets cost about 20 ms. The
    outcome of merging cannot depend on the widget's ``name`` (the patch model checks a name exactly as the full
    model does, and a preset's own name was checked with the preset), so the name is left out of the memo key and
    1,000 widgets cost a few validations. ``forget(preset)`` drops what was learnt about an edited preset. Beside
    each outcome it keeps the size of the merged settings as JSON (:meth:`resolve_sized`), the estimate the body
    limit is checked from (:mod:`tenantdeck.sizelimits`), plus the widget's name.
    """

    def __init__(self, presets: Mapping[str, WidgetSettings], known: Collection[str] | None = None) -> None:
        self.presets = presets
        #: names that exist in the draft, valid or not: a widget that extends an invalid preset is not reported
        #: again (the preset's own problems say why), one that extends a missing preset is
        self.known = known if known is not None else presets
        self._dumps: dict[str, dict[str, Any]] = {}
        self._memo: dict[tuple[str, Any], tuple[WidgetSettings | ValidationError, int]] = {}

    def forget(self, preset: str | None = None) -> None:
        if preset is None:
            self._dumps.clear()
            self._memo.clear()
            return
        self._dumps.pop(preset, None)
        for key in [k for k in self._memo if k[0] == preset]:
            del self._memo[key]

    def resolve(self, widget: WidgetDraft) -> WidgetSettings | ValidationError | None:
        """The merged settings, the error that merging them raised, or None (the preset is missing or invalid)."""
        return self.resolve_sized(widget)[0]

    def resolve_sized(self, widget: WidgetDraft) -> tuple[WidgetSettings | ValidationError | None, int]:
        """:meth:`resolve`, and how many bytes of JSON the merged settings are (0: unknown), as sent but for the
        widget's own name (at most 100 characters), which the memo leaves out."""
        name = widget.extends
        if name is None:
            try:
                settings = WidgetSettings.model_validate(merge_settings(None, widget))
            except ValidationError as exc:
                return exc, 0
            return settings, fast_size(settings)
        preset = self.presets.get(name)
        if preset is None:
            return None, 0
        overrides = widget.overrides()
        key = (name, _frozen({k: v for k, v in overrides.items() if k != "name"}))
        hit = self._memo.get(key)
        if hit is None:
            base = self._dumps.get(name)
            if base is None:
                base = self._dumps[name] = preset.model_dump(mode="json", exclude_none=True)
            merged = merge_written(base, overrides)
            try:
                valid = WidgetSettings.model_validate(merged)
                hit = valid, fast_size(valid)
            except ValidationError as exc:
                hit = exc, 0
            self._memo[key] = hit
        return hit


def _frozen(value: Any) -> Any:
    """A hashable copy of plain data (a memo key; cheaper than ``json.dumps(sort_keys=True)`` of each widget)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("[", *(_frozen(v) for v in value))
    return value


#: one part of an app's check: the App fields it reads, and the check
AppCheck = tuple[tuple[str, ...], Callable[[WidgetChecker, App, tuple[PathPart, ...], Converter], Iterator[Problem]]]
#: what :func:`check_app` kept of one app's last check, by part: (its fields, the widget checker, base, problems)
KeptChecks = dict[int, tuple[tuple[Any, ...], WidgetChecker | None, tuple[PathPart, ...], list[Problem]]]


def check_app(checker: WidgetChecker, app: App, base: tuple[PathPart, ...], convert: Converter,
              kept: KeptChecks | None = None) -> list[Problem]:
    """The cross-object problems of one app (its widgets against the presets, extensions, webhooks, secrets).

    ``kept`` (updated here): the last check of the same app; a part whose fields (:data:`APP_CHECKS`) are the same
    objects, checked with the same widget checker at the same ``base``, keeps its problems. The editor's session
    keeps one per app, so an edit of one section (a bulk edit's one toggle on 5,000 apps) checks that part again,
    not the app's webhooks, SMS and settings."""
    out: list[Problem] = []
    for n, (reads, check) in enumerate(APP_CHECKS):
        fields = tuple([getattr(app, name) for name in reads])
        with_checker = checker if check is _check_widgets else None
        last = kept.get(n) if kept is not None else None
        if (last is not None and last[1] is with_checker and last[2] == base and len(last[0]) == len(fields)
                and all(map(operator.is_, last[0], fields))):
            out += last[3]
            continue
        found = list(check(checker, app, base, convert))
        if kept is not None:
            kept[n] = (fields, with_checker, base, found)
        out += found
    return out


def _check_held_app(checker: WidgetChecker, app: App, base: tuple[PathPart, ...],
                    convert: Converter) -> Iterator[Problem]:
    yield from _held_problems(app, base, created=app.id is None)
    names = [((*base, "name"), app.name)]
    names += [((*base, "widgets", k, "name"), w.name) for k, w in enumerate(app.widgets or ()) if w.name]
    names += [((*base, "webhooks", k, "name"), h.name) for k, h in enumerate(app.webhooks or ())]
    for where, name in names:
        if unsafe(name):
            yield warning(f"{shown(name)} holds a control or bidi character: sent as written, and every screen of "
                          "tenantdeck shows it escaped; the dashboard may not", where, "name_control")


def _check_extensions(checker: WidgetChecker, app: App, base: tuple[PathPart, ...],
                      convert: Converter) -> Iterator[Problem]:
    if app.extensions is not None:
        enabled = set(app.extensions.enabled)
        for k, ext in enumerate(app.extensions.disabled):
            if ext in enabled:
                yield error(f"{ext!r} is both enabled and disabled", (*base, "extensions", "disabled", k))


def _check_widgets(checker: WidgetChecker, app: App, base: tuple[PathPart, ...],
                   convert: Converter) -> Iterator[Problem]:
    for j, widget in enumerate(app.widgets):
        yield from _check_widget(checker, app, widget, (*base, "widgets", j), convert)


def _check_webhooks(checker: WidgetChecker, app: App, base: tuple[PathPart, ...],
                    convert: Converter) -> Iterator[Problem]:
    hook_ids: dict[str, int] = {}
    for j, hook in enumerate(app.webhooks):
        path = (*base, "webhooks", j)
        if hook.id in hook_ids:
            yield error(f"webhooks[{hook_ids[hook.id]}] of this app has the same id", (*path, "id"), "duplicate_id")
        hook_ids.setdefault(hook.id, j)
        yield from _held_values(hook, path)
        if hook.webhookURL.startswith("http://") and is_loopback_host(_host(hook.webhookURL)):
            yield warning(
                "plain http to a loopback host: fine for local testing, but the service delivers only to public "
                "https endpoints",
                (*path, "webhookURL"),
                "http_loopback",
            )


def _check_literal_secrets(checker: WidgetChecker, app: App, base: tuple[PathPart, ...],
                           convert: Converter) -> Iterator[Problem]:
    """A secret written as a value instead of a ``${VAR}`` reference, in any field the models mark secret (SMS,
    webhooks, every extension's keys and tokens): a warning (``--strict`` makes it an error), at the field."""
    if app.sms is None and not app.webhooks and app.extension_settings is None:
        return
    for path, value in app_secret_values(app):
        if not is_reference(value):
            yield _literal_secret((*base, *path))
        elif (name := reference_name(value)) in CREDENTIAL_VARS:
            yield error(f"${{{name}}} is the credential tenantdeck signs in to the service with: a draft never sends "
                        "it (the field would hold the account's management secret); use a variable of its own",
                        (*base, *path), "credential_reference")


def _check_settings(checker: WidgetChecker, app: App, base: tuple[PathPart, ...],
                    convert: Converter) -> Iterator[Problem]:
    yield from _setting_problems(app.settings or {}, (*base, "settings"))


def _check_sizes(checker: WidgetChecker, app: App, base: tuple[PathPart, ...], convert: Converter) -> Iterator[Problem]:
    yield from app_size_problems(app, base)


#: an app's check, part by part in the order its problems come, each with the App fields it reads (the widgets'
#: part reads the presets too, through the widget checker)
APP_CHECKS: tuple[AppCheck, ...] = (
    (("id", *held_marks(App)), _check_held_app),
    (("extensions",), _check_extensions),
    (("widgets", "id", "name", "extensions"), _check_widgets),
    (("webhooks",), _check_webhooks),
    (("sms", "webhooks", "extension_settings"), _check_literal_secrets),
    (("settings",), _check_settings),
    (("extension_settings", "sms", "team", "settings"), _check_sizes),
)


def _setting_problems(settings: dict[str, Any], path: tuple[PathPart, ...]) -> Iterator[Problem]:
    """A key the service is not known to report is kept and sent as written (it may know more keys than the facts
    list), but it is said, with the nearest known key; a known setting of the wrong type is an error before any
    push (the API maps booleans; a list is the service's to report)."""
    for key, value in settings.items():
        known = catalog.APP_SETTING_BY_KEY.get(key)
        if known is None:
            yield warning(f"`{key}` is not an app setting the service is known to report; kept and sent as written"
                          f"{did_you_mean(key, catalog.APP_SETTING_BY_KEY)}", (*path, key), "unknown_setting")
        elif setting_refused(key, value) is not None:  # the rule pull keeps such a value verbatim by
            yield error(f"{known.label} is true or false", (*path, key), "setting_type")


def _secrets(obj: Any) -> Iterator[tuple[str, str | None]]:
    """(field, value) of every secret field of a webhook or SMS settings (None: there is no such object)."""
    if obj is not None:
        for name in secret_fields(type(obj)):
            yield name, getattr(obj, name)


def _check_widget(
    checker: WidgetChecker, app: App, widget: WidgetDraft, path: tuple[PathPart, ...], convert: Converter
) -> Iterator[Problem]:
    created = app.id is None or widget.id is None
    yield from _held_problems(widget, path, created=created)
    for section in SECTIONS:
        patch = getattr(widget, section)
        if patch is not None:
            yield from _held_problems(patch, (*path, section), created=created)
    for section in SECTIONS:
        patch = getattr(widget, section)
        if patch is None:
            continue
        for key in sorted(patch.model_fields_set):
            if getattr(patch, key) is None and (widget.extends or _required(section, key)):
                yield error(
                    "has no value; write a value, or remove the key to inherit it"
                    + (f" from preset {widget.extends!r}" if widget.extends else ""),
                    (*path, section, key),
                    "empty_value",
                )
    if widget.extends is not None and widget.extends not in checker.known:
        known = ", ".join(sorted(checker.known)) or "none are defined under presets:"
        yield error(
            f"no preset named {widget.extends!r}; presets: {known}{did_you_mean(widget.extends, checker.known)}",
            (*path, "extends"),
            "unknown_preset",
        )
        return
    settings, size = checker.resolve_sized(widget)
    if settings is None:
        return  # extends a preset that is itself invalid: its own problems say why
    if isinstance(settings, ValidationError):
        yield from convert(settings, path)
        return
    too_large = widget_body_problem(size, settings, path, widget.overrides) if size > BODY_HALF else None
    if too_large is not None:
        yield too_large
    yield from _extension_dependencies(app, widget, settings, path)


def _extension_dependencies(
    app: App, widget: WidgetDraft, settings: WidgetSettings, path: tuple[PathPart, ...]
) -> Iterator[Problem]:
    for key, extension in catalog.TOGGLE_EXTENSIONS.items():
        if getattr(settings.main, key) is not True:
            continue
        set_here = widget.main is not None and key in widget.main.model_fields_set
        where: tuple[PathPart, ...] = (*path, "main", key)
        source = "" if set_here or not widget.extends else f" (inherited from preset {widget.extends!r})"
        label = catalog.TOGGLES_BY_KEY[key].label
        if app.extensions is None:
            yield warning(
                f"{label} needs the {extension!r} extension{source}; this draft does not manage the extensions of "
                f"app {app.name!r}, so it cannot tell whether it is enabled (add it to extensions.enabled)",
                where,
                "extension_unknown",
            )
        elif extension not in app.extensions.enabled:
            state = "disables" if extension in app.extensions.disabled else "does not enable"
            yield error(
                f"{label} is on{source}, but app {app.name!r} {state} the {extension!r} extension; add "
                f"{extension!r} to extensions.enabled or turn the toggle off",
                where,
                "extension_required",
            )


_NEW_WEBHOOK_ID = re.compile(catalog.WEBHOOK_ID_PATTERN)
_KNOWN_TRIGGERS = frozenset(catalog.TRIGGER_IDS)
_HELD = "kept as the service holds it, but a push refuses to create or set such a value"


def held_reason(problem: Problem) -> str | None:
    """The reason a warning about a held value gives (what a push's refusal of that value quotes: the same
    ``*_breaks_rule`` text), or None for any other problem."""
    head, sep, _ = problem.message.partition(f": {_HELD}")
    return head if sep and problem.code.startswith("held_") else None


#: what a :class:`Held` name is called in messages, by the model that holds it
_NAMED = {"App": "app name", "WidgetDraft": "widget name", "WidgetSettings": "widget name"}


def held_breaks_rule(mark: Held, value: object, what: str = "name") -> str | None:
    """Why ``value`` may not be *sent* for a field marked ``mark`` (the documented rule), or None.

    ``what`` names the value in a length message ("widget name is 124 characters; ...").
    """
    if not mark.breaks(value):
        return None
    if mark.choices:
        return f"{value!r} is not one of {', '.join(mark.choices)}"
    return f"{what} is {len(str(value))} characters; at most {mark.max_length} may be sent"


def _held_problems(obj: Any, path: tuple[PathPart, ...], *, created: bool) -> Iterator[Problem]:
    """The values of ``obj`` (a model instance) outside the documented rules of its :class:`Held` fields.

    ``created``: the draft creates the object (an app or widget without id, a preset), so the value can only come
    from the draft and is an error, in the words validation always used; otherwise the service may hold it, and
    it is kept with a warning (the plan refuses to *set* one: :func:`widget_value_breaks_rule`).
    """
    marks = _MARKS.get(type(obj))
    if marks is None:
        marks = _MARKS[type(obj)] = tuple(held_marks(type(obj)).items())
    for name, mark in marks:  # called for every app and widget: kept to a loop over the few marked fields
        value = getattr(obj, name)
        if value is None or not mark.breaks(value):
            continue
        where = (*path, name)
        hint = did_you_mean(value, mark.choices) if mark.choices else ""
        if not created:
            why = held_breaks_rule(mark, value, _NAMED.get(type(obj).__name__, "name"))
            yield warning(f"{why}: {_HELD}{hint}", where, "held_listing" if mark.choices else "held_name")
        elif mark.choices:
            yield error(f"`{value}` is not one of {', '.join(mark.choices)}{hint}", where, "literal_error")
        else:
            yield error(f"too long: at most {mark.max_length} characters (this one has {len(value)})", where,
                        "string_too_long")


_MARKS: dict[type, tuple[tuple[str, Held], ...]] = {}


def _widget_marks() -> dict[str, Held]:
    """Leaf path of a widget's settings (``sidebar.user_listing``, ``name``) -> its :class:`Held` rule."""
    if not _WIDGET_MARKS:
        _WIDGET_MARKS.update(held_marks(WidgetSettings))
        for section, model in SECTION_MODELS.items():
            _WIDGET_MARKS.update({f"{section}.{key}": mark for key, mark in held_marks(model).items()})
    return _WIDGET_MARKS


_WIDGET_MARKS: dict[str, Held] = {}


def widget_value_breaks_rule(path: str, value: object) -> str | None:
    """Why a widget may not be *sent* with ``value`` at leaf ``path`` (created, or changed to it), or None."""
    mark = _widget_marks().get(path)
    return None if mark is None else held_breaks_rule(mark, value, "widget name" if path == "name" else path)


def app_name_breaks_rule(name: str) -> str | None:
    """Why a new app may not be created with ``name`` (the documented bound), or None."""
    return held_breaks_rule(held_marks(App)["name"], name, "app name")


def webhook_id_breaks_rule(hook_id: str) -> str | None:
    """Why ``hook_id`` may not be used for a *new* webhook (the documented rule), or None."""
    if _NEW_WEBHOOK_ID.fullmatch(hook_id):
        return None
    return f"webhook id {hook_id!r} is not letters and digits, at most {catalog.WEBHOOK_ID_MAX} (the documented rule)"


def webhook_name_breaks_rule(name: str) -> str | None:
    if len(name) <= catalog.WEBHOOK_NAME_MAX:
        return None
    return f"webhook name is {len(name)} characters; at most {catalog.WEBHOOK_NAME_MAX} may be sent"


def unknown_triggers(triggers: Iterable[str]) -> list[str]:
    """Trigger ids the documented list lacks (the service may hold them; a draft may not add them)."""
    return [t for t in triggers if t not in _KNOWN_TRIGGERS]


def _held_values(hook: Any, path: tuple[PathPart, ...]) -> Iterator[Problem]:
    """Warnings for values outside the documented rules that the service may already hold.

    The draft model accepts them so that a pull never leaves out (and a later ``--allow-delete`` never deletes)
    what the service returned; sending one is refused by the plan, where it is known whether it is new.
    """
    if (why := webhook_id_breaks_rule(hook.id)) is not None:
        yield warning(f"{why}: {_HELD}", (*path, "id"), "held_webhook_id")
    if (why := webhook_name_breaks_rule(hook.name)) is not None:
        yield warning(f"{why}: {_HELD}", (*path, "name"), "held_webhook_name")
    for k, trigger in enumerate(hook.triggers):
        if trigger not in _KNOWN_TRIGGERS:
            yield warning(
                f"{trigger!r} is not a documented trigger id: {_HELD}{did_you_mean(trigger, catalog.TRIGGER_IDS)}",
                (*path, "triggers", k),
                "held_trigger",
            )


def _required(section: str, key: str) -> bool:
    model = {
        "style": WidgetSettings.model_fields["style"].annotation,
        "sidebar": WidgetSettings.model_fields["sidebar"].annotation,
        "main": WidgetSettings.model_fields["main"].annotation,
    }[section]
    return bool(model.model_fields[key].is_required())  # type: ignore[union-attr]


def _literal_secret(path: tuple[PathPart, ...]) -> Problem:
    return warning(
        "a literal secret is written in the draft; write an ${ENV_VAR} reference instead and set the variable "
        "where you push (drafts belong in version control, secrets do not)",
        path,
        "literal_secret",
    )


def _host(url: str) -> str | None:
    from urllib.parse import urlsplit

    return urlsplit(url).hostname


def missing_secret_variables(draft: Draft, env: dict[str, str]) -> list[Problem]:
    """Errors for ``${VAR}`` references whose variable is unset: only checked when values are needed (push)."""
    from tenantdeck.models.secrets import reference_name

    problems: list[Problem] = []
    for i, app in enumerate(draft.apps):
        refs: list[tuple[tuple[PathPart, ...], str | None]] = [
            (("apps", i, "webhooks", j, name), value) for j, h in enumerate(app.webhooks) for name, value in _secrets(h)
        ]
        refs += [(("apps", i, "sms", name), value) for name, value in _secrets(app.sms)]
        for path, value in refs:
            name = reference_name(value) if value else None
            if name and name not in env:
                problems.append(
                    Problem(Severity.ERROR, f"environment variable {name} is not set (needed to push this secret)",
                            path, code="secret_unset", extra={"variable": name})
                )
    return problems
