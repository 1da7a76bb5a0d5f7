"""Canonical remote state -> draft models, keeping what the admin wrote wherever it still agrees.

Pull rewrites the draft from the service, but a draft is a hand-edited file: a widget that ``extends`` a preset
should keep doing so with only the values that really differ; a secret reference keeps its variable name. Webhook
fields the service never returns (``catalog.WEBHOOK_WRITE_ONLY``) are written only with what tenantdeck last pushed,
else left out: pull never invents a value. Secrets are never written: the draft always gets ``${VAR}`` references.

Objects without a remote identity in the old draft (an app or widget with no id, a webhook the base snapshot has
never seen) are local work waiting for a push; they are kept, not silently dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from pydantic_core import PydanticUndefined

from tenantdeck.models import (
    App,
    Extensions,
    SmsSettings,
    Team,
    Webhook,
    WidgetDraft,
    WidgetSettings,
    catalog,
)
from tenantdeck.models.app import setting_refused
from tenantdeck.models.extension_catalog import BY_ID as EXTENSION_SPECS
from tenantdeck.models.extension_catalog import Setting
from tenantdeck.models.extension_settings import draft_model, settings_of
from tenantdeck.models.secrets import derived_secret_name, reference_name, secret_env_name
from tenantdeck.models.team import email_refused
from tenantdeck.models.widget import SECTION_MODELS, SECTIONS
from tenantdeck.problems import format_path
from tenantdeck.rules import merge_settings
from tenantdeck.sync.canonical import SMS_FIELDS, WEBHOOK_FIELDS, canonical_preset, normalise_widget_settings
from tenantdeck.sync.types import WHOLE_APP, is_unknown, value_at
from tenantdeck.textsafe import shown

if TYPE_CHECKING:
    from tenantdeck.models import Draft


# --- secret reference names (named by tenantdeck.models.secrets.derived_secret_name) ----------------------------


@dataclass
class SecretNamer:
    """Hands out ``${VAR}`` names: existing names are kept; a derived name never collides with another secret's.

    Two apps named "Acme Inc" and "Acme-Inc" would both derive ``TENANTDECK_ACME_INC_...``, which would wrongly
    say they share a secret, so the second one gets its app id appended.
    """

    owners: dict[str, str] = field(default_factory=dict)  # variable -> owner key

    def reserve(self, name: str, owner: str) -> None:
        """Record a name the draft already uses (kept as is, even if shared on purpose)."""
        self.owners.setdefault(name, owner)

    def name_for(self, owner: str, existing: str | None, app_name: str, app_id: str | None, *parts: str) -> str:
        """The reference to write for one secret: the draft's own reference when it has one, else derived."""
        if existing is not None and (name := reference_name(existing)) is not None:
            self.owners.setdefault(name, owner)
            return f"${{{name}}}"
        name = derived_secret_name(app_name, *parts)
        if self.owners.get(name, owner) != owner:
            name = derived_secret_name(app_name, *parts[:-1], app_id or "NEW", parts[-1])
        self.owners[name] = owner
        return f"${{{name}}}"


def reserve_draft_references(namer: SecretNamer, apps: list[App]) -> None:
    """Register every reference an existing draft uses so derived names stay clear of them."""
    for app in apps:
        key = app.id or f"name:{app.name}"
        for hook in app.webhooks:
            if hook.password and (name := reference_name(hook.password)):
                namer.reserve(name, f"{key}/webhook/{hook.id}")
        if app.sms is not None and (name := reference_name(app.sms.twilioAuthToken)):
            namer.reserve(name, f"{key}/sms")
        for ext, settings in settings_of(app.extension_settings).items():
            for path, _ in _secret_settings(ext):
                value = value_at(settings, path)
                if isinstance(value, str) and (name := reference_name(value)):
                    namer.reserve(name, f"{key}/{ext}/{path}")


# --- widgets ----------------------------------------------------------------------------------------------------


def _model_default(section: str, key: str) -> Any:
    info = SECTION_MODELS[section].model_fields[key]
    return PydanticUndefined if info.is_required() else info.get_default(call_default_factory=True)


def _written_keys(widget: WidgetDraft | None) -> dict[str, set[str]]:
    """Which keys the admin wrote in each section of the old widget (kept when their value still agrees)."""
    out: dict[str, set[str]] = {s: set() for s in SECTIONS}
    out[""] = set()
    if widget is None:
        return out
    out[""] = {k for k in ("name", "version") if getattr(widget, k) is not None}
    for section in SECTIONS:
        patch = getattr(widget, section)
        if patch is not None:
            out[section] = {k for k in patch.model_fields_set if getattr(patch, k) is not None}
    return out


def _as_overrides(full: Mapping[str, Any], preset: Mapping[str, Any], written: dict[str, set[str]]) -> dict[str, Any]:
    """What a widget extending ``preset`` must write to end up at ``full``."""
    out: dict[str, Any] = {}
    for key in ("name", "version"):
        if key in full and (full[key] != preset.get(key) or key in written[""]):
            out[key] = full[key]
    for section in SECTIONS:
        values = {
            k: v
            for k, v in full[section].items()
            if v != preset.get(section, {}).get(k) or k in written[section]
        }
        if values:
            out[section] = values
    return out


def _as_complete(full: Mapping[str, Any]) -> dict[str, Any]:
    """A self-contained widget with every value written out.

    The draft is what gets reviewed and pushed: a value left to the model's default would silently change what is
    pushed the day that default changes, and a reviewer could not see the whole widget. ``full`` is canonical, so
    it already holds every field the service has a value for.
    """
    return {"name": full["name"], "version": full["version"], **{s: dict(full[s]) for s in SECTIONS}}


def widget_from_canonical(
    widget_id: str | None,
    full: Mapping[str, Any],
    *,
    existing: WidgetDraft | None,
    presets: Mapping[str, WidgetSettings],
) -> WidgetDraft:
    """A draft widget whose resolved settings normalise to ``full``.

    When the old widget extended a preset that still exists, the result extends it too, with only the values that
    differ (plus the overrides the admin had written whose values still agree). Otherwise it is written complete,
    every toggle explicit. Raises ``ValidationError`` when the service holds something
    the draft format cannot express.
    """
    written = _written_keys(existing)
    preset_name = existing.extends if existing is not None else None
    preset = presets.get(preset_name) if preset_name else None
    head: dict[str, Any] = {"id": widget_id} if widget_id else {}
    if preset is not None:
        candidate = WidgetDraft.model_validate(
            {**head, "extends": preset_name, **_as_overrides(full, canonical_preset(preset), written)}
        )
        if normalise_widget_settings(merge_settings(preset, candidate)) == full:
            return candidate
        # the remote widget unsets something the preset sets: it cannot extend it any more
    candidate = WidgetDraft.model_validate({**head, **_as_complete(full)})
    WidgetSettings.model_validate(merge_settings(None, candidate))  # complete on its own, or the service's fault
    return candidate


def widget_with_held_fields(widget_id: str, full: Mapping[str, Any], *, existing: WidgetDraft | None,
                            presets: Mapping[str, WidgetSettings]) -> tuple[WidgetDraft, list[str]]:
    """:func:`widget_from_canonical`, and the fields (dotted paths) it left out because the draft format refuses
    the service's value (``style.primary_color: "red; background:url(…)"``): the widget is kept, only those
    fields are held verbatim (the base keeps them; :func:`~tenantdeck.sync.types.with_verbatim`). A field the
    widget cannot do without (no default) cannot be left out: raises ``ValidationError`` (the caller keeps the
    whole widget verbatim)."""
    held: list[str] = []
    for _ in range(4):  # a refused value at most per section and the name; each round leaves out what it named
        try:
            return widget_from_canonical(widget_id, full, existing=existing, presets=presets), held
        except ValidationError as exc:
            paths = _refused_fields(exc)
            if paths is None or set(paths) & set(held):
                raise
            held += paths
            full = _without(full, [tuple(p.split(".")) for p in paths])
    return widget_from_canonical(widget_id, full, existing=existing, presets=presets), held


def _refused_fields(exc: ValidationError) -> list[str] | None:
    """The widget fields ``exc`` names (``style.primary_color``, ``name``), or None when one of them cannot be
    left out (it has no default) or an error is not about one field."""
    out: list[str] = []
    for error in exc.errors(include_url=False):
        loc = [p for p in error["loc"] if isinstance(p, str)]
        if loc and loc[0] in SECTION_MODELS and len(loc) >= 2:
            info = SECTION_MODELS[loc[0]].model_fields.get(loc[1])
            path = f"{loc[0]}.{loc[1]}"
        elif loc and loc[0] in WidgetSettings.model_fields:
            info, path = WidgetSettings.model_fields[loc[0]], loc[0]
        else:
            return None
        if info is None or info.is_required():
            return None
        out.append(path)
    return sorted(set(out))


# --- webhooks, SMS, extensions ----------------------------------------------------------------------------------


def webhook_from_canonical(
    hook_id: str,
    state: Mapping[str, Any],
    *,
    existing: Webhook | None,
    app_name: str,
    app_id: str | None,
    namer: SecretNamer,
) -> Webhook:
    """A draft webhook holding what is known of it: what the service reports, and for the write-only fields it
    never reports, what tenantdeck last pushed (``state`` comes from :func:`~.canonical.with_last_pushed`).

    A field nobody knows is left out, never filled with a default: left out, a field is left as it is on the
    service (:func:`write_only_note` says so in the draft). ``existing`` lends its secret reference name, and the
    keys it leaves out: one whose service value is the documented default
    (:data:`~tenantdeck.models.catalog.WEBHOOK_CREATE_DEFAULTS`, what a create without it gives) stays left out,
    as it is no difference; the pull preview diffs this result, so what it lists is what a pull writes.
    """
    data: dict[str, Any] = {"id": hook_id}
    defaults = catalog.WEBHOOK_CREATE_DEFAULTS
    for key in WEBHOOK_FIELDS:
        value = state.get(key)
        if existing is not None and getattr(existing, key) is None and key in defaults and value == defaults[key]:
            continue
        if value is not None and not is_unknown(value):  # every known value explicit: reviewed is what is pushed
            data[key] = value
    basic_auth = data.get("useBasicAuth", False)
    password = state.get("password")
    old_password = existing.password if existing is not None else None
    if password is not None and not is_unknown(password):
        wants_password = True  # tenantdeck pushed one (or the service said so): reference it
    elif is_unknown(password):
        wants_password = old_password is not None or basic_auth  # a reference is a name, not a value
    else:
        wants_password = False
    if wants_password:
        owner = f"{app_id or 'name:' + app_name}/webhook/{hook_id}"
        suffix = secret_env_name(Webhook, "password")
        data["password"] = namer.name_for(owner, old_password, app_name, app_id, hook_id, suffix)
    triggers = state.get("triggers")
    if is_unknown(triggers):
        triggers = list(existing.triggers) if existing is not None else []
    elif triggers is None:  # none held: a webhook created with no trigger (the account after a push) has none
        triggers = []
    data["triggers"] = _keep_order(triggers, existing.triggers if existing is not None else [])
    return Webhook.model_validate(data)


def write_only_note(state: Mapping[str, Any]) -> str:
    """The comment pull writes beside a webhook: which of its fields the service does not report.

    It states only what stays true whatever is edited later: the draft's session does not rewrite comments, and the
    old form ("password unknown (left out ...)", "username as last pushed by tenantdeck") sat above a password the
    user had just added, contradicting it until the next pull. Where a value the draft holds for such a field came
    from (tenantdeck's last push, or the user) is docs/real-service.md's to say, once."""
    fields = [k for k in (*WEBHOOK_FIELDS, "password")
              if is_unknown(state.get(k, {"unknown": True}))
              or (k in catalog.WEBHOOK_WRITE_ONLY and state.get(k) is not None)]
    if not fields:
        return ""
    return (f"tenantdeck: not reported by the service: {', '.join(fields)} (one the draft leaves out is left as the "
            "service has it)")


def draft_notes(draft: Draft, canonicals: Mapping[str, Mapping[str, Any]]) -> dict[tuple[str | int, ...], str]:
    """The comments pull writes into the draft: :func:`write_only_note` on the ``id`` line of each pulled webhook."""
    notes: dict[tuple[str | int, ...], str] = {}
    for i, app in enumerate(draft.apps):
        hooks = (canonicals.get(app.id or "") or {}).get("webhooks") or {}
        for j, hook in enumerate(app.webhooks):
            if hook.id in hooks and (note := write_only_note(hooks[hook.id])):
                notes[("apps", i, "webhooks", j, "id")] = note
    return notes


def _keep_order(values: list[str], old: list[str]) -> list[str]:
    """``values`` ordered like the old list where it had them (hand-ordered lists stay put), new ones sorted after."""
    wanted = set(values)
    kept = [v for v in old if v in wanted]
    return kept + sorted(wanted - set(kept))


def sms_from_canonical(
    state: Mapping[str, Any],
    *,
    existing: SmsSettings | None,
    app_name: str,
    app_id: str | None,
    namer: SecretNamer,
) -> SmsSettings:
    data: dict[str, Any] = {}
    for key in SMS_FIELDS:
        value = state.get(key)
        if is_unknown(value) and existing is not None:
            value = getattr(existing, key)
        if value is not None and not is_unknown(value):
            data[key] = value
    old_token = existing.twilioAuthToken if existing is not None else None
    owner = f"{app_id or 'name:' + app_name}/sms"
    suffix = secret_env_name(SmsSettings, "twilioAuthToken")
    data["twilioAuthToken"] = namer.name_for(owner, old_token, app_name, app_id, suffix)
    return SmsSettings.model_validate(data)


def _secret_settings(ext: str) -> list[tuple[str, Setting]]:
    """(dotted path, setting) of each secret field of ``ext``'s settings, nested objects' included."""
    spec = EXTENSION_SPECS.get(ext)
    return [(path, s) for path, s in spec.fields() if s.secret] if spec is not None else []


def _set_path(value: dict[str, Any], path: str, item: Any) -> None:
    *parents, last = path.split(".")
    for part in parents:
        value = value.setdefault(part, {})
    value[last] = item


def _known(value: Any, old: Any) -> Any:
    """A value as the draft should hold it: unknown parts (the service did not report them) are the old draft's,
    or left out (None)."""
    if is_unknown(value):
        return old
    if isinstance(value, Mapping):
        out = {k: _known(v, old.get(k) if isinstance(old, Mapping) else None) for k, v in value.items()}
        return {k: v for k, v in out.items() if v is not None}
    return value


def extension_settings_from_canonical(
    states: Mapping[str, Any] | None,
    *,
    existing: Mapping[str, dict[str, Any]] | None,
    app_name: str,
    app_id: str | None,
    namer: SecretNamer,
    notes: list[str],
    label: str,
    verbatim: list[str] | None = None,
) -> dict[str, Any] | None:
    """The draft's ``extension_settings`` block: each extension's settings the service holds, the old draft's
    order kept, secrets as ``${VAR}`` (the draft's own reference when it had one, else a derived name), values the
    service did not report taken from the old draft or left out. An extension whose settings the draft's model
    cannot hold (a value of another JSON type, a key it does not know) is kept as the service holds it: left out of
    the draft, named in ``verbatim`` (the base records it, so leaving it out is not a delete), with a note; the old
    draft's entry is not kept either (pushing it would revert the service). Not read (None): the old block, or none;
    nothing on the service and no old block: none (the draft then does not manage extension settings)."""
    if states is None:
        return dict(existing) if existing is not None else None
    if not states and existing is None:
        return None
    old = dict(existing or {})
    out: dict[str, Any] = {}
    for ext in _keep_order(list(states), list(old)):
        state, before = states[ext], old.get(ext) or {}
        data = _known({k: v for k, v in state.items()}, before)
        for path, setting in _secret_settings(ext):
            if value_at(state, path) is None:
                continue
            owner = f"{app_id or 'name:' + app_name}/{ext}/{path}"
            old_ref = value_at(before, path)
            _set_path(data, path, namer.name_for(owner, old_ref if isinstance(old_ref, str) else None, app_name,
                                                 app_id, setting.secret or path))
        try:
            out[ext], unknown = _settings_for_draft(ext, data)
        except ValidationError as exc:
            notes.append(f"{label} extension_settings.{ext}: kept as the service holds it, not written to the "
                         f"draft ({_validation_summary(exc)}); write the whole entry to manage it from the draft")
            if verbatim is not None:
                verbatim.append(ext)
            continue
        if unknown:
            notes.append(f"{label} extension_settings.{ext}: {', '.join(shown(k) for k in unknown)} kept as the "
                         "service holds it, not written to the draft (not in the catalog); a push sends it back "
                         "unchanged")
    return out


def _settings_for_draft(ext: str, data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``data`` as the draft's model holds it, and the keys the catalog does not know (dotted paths) left out of
    it: outside a list, a key left out of the draft is "as the service holds it" (an update is the live settings
    with the draft's changes on top), so it is kept, never planned. Anything else the model refuses raises (the
    caller keeps the whole entry verbatim)."""
    model = draft_model(ext)
    try:
        return model.model_validate(data).model_dump(exclude_none=True), []
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        if not all(e["type"] == "extra_forbidden" and all(isinstance(p, str) for p in e["loc"]) for e in errors):
            raise
        paths = [tuple(str(p) for p in e["loc"]) for e in errors]
    trimmed = _without(data, paths)
    return model.model_validate(trimmed).model_dump(exclude_none=True), [".".join(p) for p in paths]


def _without(data: Mapping[str, Any], paths: list[tuple[str, ...]]) -> dict[str, Any]:
    """A copy of ``data`` without the keys at ``paths`` (each a path of object keys)."""
    out = dict(data)
    for path in paths:
        holder = out
        for part in path[:-1]:
            holder[part] = dict(holder[part])
            holder = holder[part]
        holder.pop(path[-1], None)
    return out


def extensions_from_canonical(states: Mapping[str, bool] | None, existing: Extensions | None) -> Extensions | None:
    """``enabled``: every enabled extension; ``disabled``: the disabled ones the draft already managed.

    Listing all ~40 disabled extensions would bury the few that matter; the draft's own choices are what it manages.
    Unknown state (None) keeps the old block, or none.
    """
    if states is None or is_unknown(states):
        return existing
    managed = set(existing.enabled) | set(existing.disabled) if existing is not None else set()
    enabled = _keep_order([k for k, on in states.items() if on], list(existing.enabled) if existing else [])
    disabled = _keep_order(
        [k for k, on in states.items() if not on and k in managed], list(existing.disabled) if existing else []
    )
    return Extensions.model_validate({"enabled": enabled, "disabled": disabled})


# --- apps -------------------------------------------------------------------------------------------------------


@dataclass
class AppConversion:
    """One converted app plus what the user should hear about it (kept local items, unrepresentable values)."""

    #: None when the whole app is kept out of the draft (:data:`~tenantdeck.sync.types.WHOLE_APP` in ``verbatim``):
    #: the draft's model refuses one of its own fields (a name with a newline, a region outside us/eu/in)
    app: App | None
    notes: list[str] = field(default_factory=list)
    #: section -> keys kept as the service holds them, not written to the draft (the base's ``verbatim``); for
    #: widgets, ``{widget id: [field paths]}`` (no path: the whole widget); ``app``: the app's own fields that kept
    #: the whole app out
    verbatim: dict[str, Any] = field(default_factory=dict)
    #: the app as converted, not validated (what the service holds, in the draft's shape): for readers that judge
    #: the service rather than write a draft (the policies), when :attr:`app` is None
    unchecked: App | None = None


def _validation_summary(exc: ValidationError) -> str:
    parts = [f"{format_path(e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors(include_url=False)[:3]]
    return "; ".join(parts)


def app_from_canonical(
    canonical: Mapping[str, Any],
    *,
    existing: App | None,
    base: Mapping[str, Any] | None,
    presets: Mapping[str, WidgetSettings],
    namer: SecretNamer,
) -> AppConversion:
    """The draft app for one pulled canonical app.

    ``existing`` is the same app in the old draft (matched by id, or by name for an app without id); ``base`` is
    its previous base snapshot, used to tell a webhook deleted on the service (in the base) from one added locally
    and not pushed yet (never in the base: kept).
    """
    notes: list[str] = []
    app_id: str = canonical["id"]
    name: str = canonical["name"]
    label = f"app {name!r} ({app_id})"
    data: dict[str, Any] = {"id": app_id, "name": name, "region": canonical["region"]}
    if canonical.get("version") != "3" or (existing is not None and "version" in existing.model_fields_set):
        data["version"] = canonical.get("version") or "3"

    extensions = extensions_from_canonical(canonical.get("extensions"), existing.extensions if existing else None)
    if extensions is not None:
        data["extensions"] = extensions

    # widgets: the old draft's order first, then new remote widgets in the service's order
    old_widgets = list(existing.widgets) if existing is not None else []
    remote_widgets: Mapping[str, Any] = canonical.get("widgets") or {}
    by_id = {w.id: w for w in old_widgets if w.id}
    unclaimed_names = {
        str(settings.get("name")): wid for wid, settings in remote_widgets.items() if wid not in by_id
    }
    matched: dict[str, WidgetDraft] = dict(by_id)
    pending: list[WidgetDraft] = []
    for w in old_widgets:
        if w.id:
            continue
        resolved_name = w.name or (presets[w.extends].name if w.extends in presets else None)
        wid = unclaimed_names.pop(resolved_name, None) if resolved_name else None
        if wid is not None and wid not in matched:
            matched[wid] = w
        else:
            pending.append(w)
    order = [w.id for w in old_widgets if w.id in remote_widgets]
    order += [wid for wid in remote_widgets if wid not in order]
    widgets: list[WidgetDraft] = []
    kept_widgets: dict[str, list[str]] = {}
    for wid in order:
        where = f"{label} widget {shown(wid)}"
        try:
            widget, held = widget_with_held_fields(wid, remote_widgets[wid], existing=matched.get(wid),
                                                   presets=presets)
        except ValidationError as exc:
            kept_widgets[wid] = []  # the whole widget: the base keeps it, leaving it out is not a delete
            why = shown(_validation_summary(exc))
            notes.append(f"{where}: kept as the service holds it, not written to the draft (a field it must have "
                         f"does not fit the draft format: {why}); change it in the dashboard")
            continue
        widgets.append(widget)
        if held:
            kept_widgets[wid] = held
            notes.append(f"{where}: {', '.join(shown(p) for p in held)} kept as the service holds it, not written "
                         f"to the draft (the draft format refuses the value); a push leaves it as it is unless the "
                         "draft writes it")
    widgets.extend(pending)
    if pending:
        notes.append(f"{label}: kept {len(pending)} widget(s) without id that are not on the service (not pushed yet)")
    data["widgets"] = widgets

    # SMS
    sms_state = canonical.get("sms")
    if sms_state is not None:
        try:
            data["sms"] = sms_from_canonical(
                sms_state, existing=existing.sms if existing else None, app_name=name, app_id=app_id, namer=namer
            )
        except ValidationError as exc:
            notes.append(f"{label} sms: cannot be written to the draft ({_validation_summary(exc)})")
            if existing is not None and existing.sms is not None:
                data["sms"] = existing.sms

    # webhooks: old order first; local-only hooks the base never saw are kept (not pushed yet)
    remote_hooks: Mapping[str, Any] = canonical.get("webhooks") or {}
    old_hooks = {h.id: h for h in (existing.webhooks if existing is not None else [])}
    base_hooks = (base or {}).get("webhooks") or {}
    hook_order = [h for h in old_hooks if h in remote_hooks or h not in base_hooks]
    hook_order += [h for h in remote_hooks if h not in hook_order]
    hooks: list[Webhook] = []
    kept_local = 0
    for hook_id in hook_order:
        old_hook = old_hooks.get(hook_id)
        if hook_id not in remote_hooks:
            if old_hook is not None:
                hooks.append(old_hook)
                kept_local += 1
            continue
        try:
            hooks.append(
                webhook_from_canonical(
                    hook_id, remote_hooks[hook_id], existing=old_hook, app_name=name, app_id=app_id, namer=namer
                )
            )
        except ValidationError as exc:
            notes.append(f"{label} webhook {hook_id!r}: cannot be written to the draft ({_validation_summary(exc)})")
            if old_hook is not None:
                hooks.append(old_hook)
    if kept_local:
        notes.append(f"{label}: kept {kept_local} webhook(s) that are not on the service yet (not pushed)")
    data["webhooks"] = hooks
    kept_team: list[str] = []
    team = team_from_canonical(canonical.get("team"), existing.team if existing is not None else None, kept_team)
    if team is not None:
        data["team"] = team
    if kept_team:
        who = ", ".join(shown(e) for e in kept_team)
        notes.append(f"{label} team: kept as the service holds them, not written to the draft (an email the "
                     f"draft's rules refuse, or one equal to another but for case): {who}")
    kept_ext: list[str] = []
    ext_settings = extension_settings_from_canonical(
        canonical.get("extension_settings"),
        existing=settings_of(existing.extension_settings) if existing is not None and
        existing.extension_settings is not None else None,
        app_name=name, app_id=app_id, namer=namer, notes=notes, label=label, verbatim=kept_ext)
    if ext_settings is not None:
        data["extension_settings"] = ext_settings
    if existing is not None and existing.push_certificates is not None:
        data["push_certificates"] = existing.push_certificates  # paths of local files: the service has no path
    if existing is not None and existing.labels is not None:
        data["labels"] = dict(existing.labels)  # the draft's own (fleet policies select by them): never on the service
    kept_settings: list[str] = []
    settings = settings_from_canonical(canonical.get("settings"), existing.settings if existing is not None else None,
                                       kept_settings)
    if settings is not None:
        data["settings"] = settings
    if kept_settings:
        notes.append(settings_note(label, canonical.get("settings") or {}, kept_settings))
    verbatim: dict[str, Any] = {k: v for k, v in (("team", kept_team), ("extension_settings", kept_ext),
                                                   ("settings", kept_settings), ("widgets", kept_widgets)) if v}
    try:
        app = App.model_validate(data)
    except ValidationError as exc:
        return _kept_whole(label, data, exc, verbatim)
    return AppConversion(app=app, notes=notes, verbatim=verbatim)


def _kept_whole(label: str, data: dict[str, Any], exc: ValidationError, verbatim: dict[str, Any]) -> AppConversion:
    """The app kept out of the draft as a whole, as the service holds it: the draft's model refuses one of the
    app's own fields (a name with a newline or blank, a region outside us/eu/in, a version not "3"), and the draft
    cannot leave a required field out. Its base keeps it (:data:`~tenantdeck.sync.types.WHOLE_APP`), so a draft
    without it is never a delete (nor a create: the draft has no such app); lax on read, a traceback never was
    the answer (trial L, L6). Everything inside it is the service's until the field is fixed in the dashboard and
    pulled again; the draft's other apps are pulled as usual."""
    fields = sorted({str(e["loc"][0]) for e in exc.errors(include_url=False) if e["loc"]}) or ["name"]
    note = (f"{shown(label)}: kept as the service holds it, not written to the draft (its "
            f"{shown(_validation_summary(exc))}); a push leaves the whole app as it is: fix it in the dashboard, "
            "then pull")
    return AppConversion(app=None, notes=[note], verbatim={**verbatim, WHOLE_APP: fields},
                         unchecked=App.model_construct(**data))


def settings_from_canonical(live: Mapping[str, Any] | None, existing: Mapping[str, Any] | None,
                            verbatim: list[str] | None = None) -> dict[str, Any] | None:
    """Every setting the service reports, in the old draft's order where it had them (new keys sorted after); a
    key the draft has that the service does not report is kept (the service's answer decides nothing about it).
    Not read (None): the old block, or none.

    A setting the draft's model cannot hold (``core.limits.maxGroupSize: 100``, a key with a control character:
    :func:`~tenantdeck.models.app.setting_refused`) is kept as the service holds it: left out (the old draft's
    value too: pushing it would revert the service) and named in ``verbatim``; the draft manages only the keys it
    names, so leaving it out is never a change."""
    if live is None:
        return dict(existing) if existing is not None else None
    old = dict(existing or {})
    held = [k for k in live if setting_refused(k, live[k]) is not None]
    if verbatim is not None:
        verbatim.extend(sorted(held))
    order = [k for k in _keep_order(list(live), list(old)) if k not in held]
    return {**{k: live[k] for k in order}, **{k: v for k, v in old.items() if k not in live}}


def settings_note(label: str, live: Mapping[str, Any], held: list[str]) -> str:
    """The pull note for the app settings kept as the service holds them: each key (escaped) and why."""
    why = "; ".join(f"{shown(k)}: {setting_refused(k, live.get(k))}" for k in held[:5])
    more = f"; and {len(held) - 5} more" if len(held) > 5 else ""
    return (f"{label} settings: kept as the service holds them, not written to the draft ({why}{more}); a push "
            "leaves them as they are")


def _team_order(roles: Mapping[str, str], existing: Team | None) -> list[str]:
    """The order in which pull claims each email for the draft: the old draft's own emails first (the original it
    manages stays; a later case duplicate is the one kept verbatim), then the service's order (the first listed is
    the original)."""
    listed = [e for key in catalog.TEAM_LISTS.values() for e in getattr(existing, key)] if existing else []
    mine = [e for e in listed if e in roles]
    return [*mine, *(e for e in roles if e not in mine)]


def team_from_canonical(roles: Mapping[str, str] | None, existing: Team | None,
                        verbatim: list[str] | None = None) -> dict[str, list[str]] | None:
    """The draft's ``team`` block for the service's admins and moderators, in the old draft's order where it had
    them. None (no block: not managed) when the service has none and the draft did not manage it either.

    An email the draft's rules refuse (``raj@localhost``: the dashboard's rules are not ours), or a second one
    equal to another but for case, is kept as the service holds it: left out of the block and named in
    ``verbatim``, never a validation error for the whole account."""
    if not roles and existing is None:
        return None
    roles = dict(roles or {})
    seen: set[str] = set()
    for email in _team_order(roles, existing):
        if email_refused(email) is not None or email.casefold() in seen:
            del roles[email]
            if verbatim is not None:
                verbatim.append(email)
        else:
            seen.add(email.casefold())
    out: dict[str, list[str]] = {}
    for role, key in catalog.TEAM_LISTS.items():
        emails = sorted(e for e, r in roles.items() if r == role)
        out[key] = _keep_order(emails, list(getattr(existing, key)) if existing is not None else [])
    return out

