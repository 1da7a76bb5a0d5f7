"""What differs per target: ``<draft stem>.targets.yaml`` beside the draft, and the draft as one target sees it.

Why: one draft goes to several accounts (staging, then production). Their app ids differ (each account assigns its
own), and a few values differ on purpose (a production webhook URL, a brand colour). Copying the draft per target
lets the copies drift; Terraform's answer is workspaces plus tfvars. Here the draft stays one file, and a second
file, committed beside it, names per profile what differs::

    # tenantdeck.targets.yaml
    format: 1
    targets:
      production:                  # a profile name (profiles.yaml), as --profile names it
        apps:
          Acme Support:            # an app of the draft, by name
            id: app_9f2c1          # its id in production; absent: the first push creates it and writes it here
            widgets:
              Acme help desk:      # a widget of that app, by name
                id: w_77
                style: {primary_color: '#D32F2F'}
            webhooks:
              audit:               # a webhook of that app, by id (webhook ids are chosen by the draft)
                url: https://hooks.example.com/prod/audit
            sms: {fromMobileNo: '+15550100'}

The draft *as target P sees it* (:func:`effective_data`) is the draft with P's section applied: every app and
widget id replaced by P's (none: created in P), and each partial value deep-merged over the draft's (mappings
merge key by key; anything else replaces). A profile with no section here is the draft's own account: the draft's
ids, no overrides (the rule of :mod:`tenantdeck.sync.workspace.binding` then applies).

Problems of the effective draft are placed where the value came from: in this file for an overridden value, in the
draft otherwise (:class:`EffectiveDocument`), so ``validate`` and ``push`` name a line the user can open.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from tenantdeck.draft.load import DraftDocument, LoadResult, load_draft, load_text
from tenantdeck.problems import PathPart, Problem, error, sort_problems

SUFFIX = ".targets.yaml"
TARGETS_FORMAT = 1

#: a profile name as profiles.yaml spells them: also part of a file name (``<stem>.<profile>.lock.json``)
ProfileName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$")]


class _Loose(BaseModel):
    """A partial object of the draft: checked once merged over the draft's (the draft's models say what fits)."""

    model_config = ConfigDict(extra="allow", strict=True)


class WidgetOverride(_Loose):
    """One widget of the app, by its name: its id in this target and any partial widget settings."""

    id: str | None = Field(None, description="widgetId in this target; absent: created there by the first push")


class AppOverride(BaseModel):
    """One app of the draft, by its name: its id in this target and the values that differ there."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str | None = Field(None, description="appId in this target; absent: created there by the first push (which "
                           "writes the new id here)")
    region: Literal["us", "eu", "in"] | None = Field(None, description="Data region in this target")
    extensions: dict[str, Any] | None = Field(None, description="Partial `extensions` block (enabled, disabled)")
    widgets: dict[str, WidgetOverride] = Field(
        default_factory=dict, description="Widgets of the app by name: id in this target and partial settings")
    webhooks: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Webhooks of the app by id: partial webhook (url, triggers, ...)")
    sms: dict[str, Any] | None = Field(None, description="Partial SMS settings")
    team: dict[str, Any] | None = Field(None, description="Partial team (admins, moderators)")
    extension_settings: dict[str, Any] | None = Field(None, description="Partial extension settings")
    push_certificates: dict[str, Any] | None = Field(None, description="Partial push certificate paths")
    settings: dict[str, Any] | None = Field(None, description="App settings by key")


class TargetSection(BaseModel):
    """What differs in one target (profile)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    apps: dict[str, AppOverride] = Field(default_factory=dict, description="Apps of the draft by name")


class TargetsFile(BaseModel):
    """``<stem>.targets.yaml``: per profile, the app ids and the values that differ from the draft."""

    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal[1] = Field(1, description="Format of this file: 1")
    targets: dict[ProfileName, TargetSection] = Field(
        default_factory=dict, description="Per profile name: what differs in that target")


def targets_path(draft_path: str | os.PathLike[str]) -> Path:
    """``tenantdeck.yaml`` -> ``tenantdeck.targets.yaml`` beside it (two drafts in a folder, two files)."""
    path = Path(draft_path)
    return path.with_name(path.stem + SUFFIX)


def targets_schema() -> dict[str, Any]:
    """The JSON Schema of the targets file (``tenantdeck schema --targets``), for editors."""
    body = TargetsFile.model_json_schema(mode="validation")
    return {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "urn:tenantdeck:targets-format-1",
            "title": "tenantdeck targets file (format 1)", **{k: v for k, v in body.items() if k != "title"}}


class TargetOverridesInvalid(Exception):
    """The targets file cannot be used; ``problems`` are located in it (or in the draft)."""

    def __init__(self, problems: list[Problem], warnings: list[Problem] | None = None) -> None:
        super().__init__(f"{sum(p.is_error for p in problems)} error(s) in the targets file")
        self.problems = problems
        #: what ``validate`` says of the file besides (a comment holding a raw bidi character), never an error
        self.warnings = warnings or []


@dataclass(slots=True)
class TargetOverrides:
    """The targets file as read: its model and its document (to place problems)."""

    path: Path
    model: TargetsFile
    doc: DraftDocument
    #: the file's own warnings: a comment holding a raw bidi character
    #: (:func:`~tenantdeck.draft.raw_scalars.comment_problems`)
    warnings: list[Problem] = field(default_factory=list)

    def section(self, profile: str | None) -> TargetSection | None:
        return self.model.targets.get(profile) if profile else None


def read_target_overrides(draft_path: str | os.PathLike[str]) -> TargetOverrides | None:
    """The draft's targets file, validated (raises :class:`TargetOverridesInvalid`), or None when there is none."""
    from tenantdeck.draft import yamlsource

    path = targets_path(draft_path)
    if not (path.exists() or path.is_symlink()):  # a link to nothing is refused below (outside, or no such file)
        return None
    name = os.fspath(path)
    text, problems = yamlsource.read_text(path, display=name, beside=path.parent)
    if text is None:
        raise TargetOverridesInvalid(problems)
    from tenantdeck.draft.configyaml import reworded
    from tenantdeck.draft.raw_scalars import comment_problems

    parsed = yamlsource.parse(text, name)
    # the draft reader's words said of this file ("anchors ... are not supported in a targets file"; trial L, L10)
    parsed.problems[:] = [reworded(p, "targets file") for p in parsed.problems]
    notes = comment_problems(text, name, data=None if parsed.fatal else parsed.data)
    doc = DraftDocument(name, text, parsed.data)
    if parsed.fatal:
        raise TargetOverridesInvalid(sort_problems(parsed.problems), notes)
    data = parsed.data if not parsed.empty else {}
    if not isinstance(data, dict):
        raise TargetOverridesInvalid([doc.place(error("a targets file is a mapping with the keys format and targets"))],
                                     notes)
    try:
        model = TargetsFile.model_validate(data)
    except ValidationError as exc:
        from tenantdeck.draft.pydantic_problems import convert

        raise TargetOverridesInvalid(sort_problems(doc.place(p) for p in convert(
            exc, root=TargetsFile, data=data, scalar=doc.scalar)), notes) from None
    from tenantdeck.draft.load import _duplicates

    found = [*parsed.problems, *_duplicates(doc, parsed.duplicates)]
    if any(p.is_error for p in found):
        raise TargetOverridesInvalid(sort_problems(found), notes)
    return TargetOverrides(path, model, doc, notes)


def has_section(draft_path: str | os.PathLike[str], profile: str | None) -> bool:
    """Whether ``profile`` is a target of the draft's targets file (a broken file raises
    :class:`TargetOverridesInvalid`: a push must not fall back to the draft's own account because the file could not
    be read)."""
    overrides = read_target_overrides(draft_path) if profile else None
    return overrides is not None and overrides.section(profile) is not None


# --- the draft as one target sees it ------------------------------------------------------------------------------


def widget_name(widget: Mapping[str, Any], presets: Mapping[str, Any]) -> str | None:
    """A widget's name as the draft means it: its own, else its preset's (``extends``)."""
    name = widget.get("name")
    if name is None and isinstance(widget.get("extends"), str):
        preset = presets.get(widget["extends"])
        name = preset.get("name") if isinstance(preset, Mapping) else None
    return name if isinstance(name, str) else None


def _merge(into: Any, over: Any, at: tuple[PathPart, ...], leaves: list[tuple[PathPart, ...]]) -> Any:
    """``over`` deep-merged over ``into``; every leaf taken from ``over`` is appended to ``leaves`` (its path)."""
    if isinstance(into, dict) and isinstance(over, Mapping):
        out = dict(into)
        for key, value in over.items():
            out[key] = _merge(into.get(key), value, (*at, key), leaves)
        return out
    if isinstance(over, Mapping):  # a new mapping: each of its keys was written in the targets file
        if over:
            leaves.extend((*at, k) for k in over)
        else:
            leaves.append(at)
        return copy.deepcopy(dict(over))
    leaves.append(at)
    return copy.deepcopy(over)


@dataclass(slots=True)
class Effective:
    """The draft's data as one target sees it, and where each overridden leaf came from in the targets file."""

    data: dict[str, Any]
    #: path in ``data`` -> path in the targets file, for every value the section set
    origins: dict[tuple[PathPart, ...], tuple[PathPart, ...]] = field(default_factory=dict)
    #: names the section gives that the draft does not have (placed in the targets file by the caller)
    problems: list[Problem] = field(default_factory=list)


def section_apps_data(section: TargetSection | None) -> dict[str, dict[str, Any]]:
    """The section's apps as plain data (only the keys written), app name -> override."""
    if section is None:
        return {}
    return {name: ov.model_dump(exclude_unset=True) for name, ov in section.apps.items()}


def effective_data(data: Mapping[str, Any], profile: str, section: TargetSection | None, *,
                   keep_ids: bool = False) -> Effective:
    """The draft ``data`` as target ``profile`` sees it: ids replaced by the section's (``keep_ids``: the draft's
    own, for its own account), the section's partial values merged in. Names the section gives that the draft does
    not have are problems (located in the targets file)."""
    out = copy.deepcopy(dict(data))
    presets = out.get("presets") if isinstance(out.get("presets"), dict) else {}
    apps = out.get("apps") if isinstance(out.get("apps"), list) else []
    result = Effective(out)
    overrides = section_apps_data(section)
    seen: set[str] = set()
    for i, app in enumerate(apps):
        if not isinstance(app, dict):
            continue
        if not keep_ids:
            app.pop("id", None)
            for widget in app.get("widgets") or []:
                if isinstance(widget, dict):
                    widget.pop("id", None)
        name = app.get("name")
        if not isinstance(name, str) or name not in overrides:
            continue
        seen.add(name)
        _apply_app(app, overrides[name], (("apps", i), ("targets", profile, "apps", name)), presets, result)
    for name in overrides:
        if name not in seen:
            result.problems.append(error(f"the draft has no app named {name!r}; a target names the draft's apps by "
                                         "name", ("targets", profile, "apps", name), "unknown-app"))
    return result


def _apply_app(app: dict[str, Any], override: dict[str, Any], where: tuple[tuple[PathPart, ...], ...],
               presets: Mapping[str, Any], result: Effective) -> None:
    at, origin = where
    for key, value in override.items():
        if key == "id":
            if value:
                app["id"] = value
                result.origins[(*at, "id")] = (*origin, "id")
            continue
        if key in ("widgets", "webhooks"):
            continue
        leaves: list[tuple[PathPart, ...]] = []
        app[key] = _merge(app.get(key), value, (key,), leaves)
        for leaf in leaves:
            result.origins[(*at, *leaf)] = (*origin, *leaf)
    items = {"widgets": (lambda w: widget_name(w, presets)), "webhooks": (lambda h: h.get("id"))}
    for section, key_of in items.items():
        listed = app.get(section) if isinstance(app.get(section), list) else []
        index = {key_of(item): j for j, item in enumerate(listed) if isinstance(item, dict)}
        for name, value in (override.get(section) or {}).items():
            if name not in index:
                what = "widget named" if section == "widgets" else "webhook with the id"
                result.problems.append(error(f"app {app.get('name')!r} of the draft has no {what} {name!r}",
                                             (*origin, section, name), f"unknown-{section[:-1]}"))
                continue
            j = index[name]
            item = listed[j]
            for k, v in value.items():
                if k == "id" and section == "widgets":
                    if v:
                        item["id"] = v
                        result.origins[(*at, section, j, "id")] = (*origin, section, name, "id")
                    continue
                if k == "id":
                    result.problems.append(error("a webhook's id is the same in every target; it cannot be "
                                                 "overridden", (*origin, section, name, "id"), "webhook-id"))
                    continue
                leaves = []
                item[k] = _merge(item.get(k), v, (k,), leaves)
                for leaf in leaves:
                    result.origins[(*at, section, j, *leaf)] = (*origin, section, name, *leaf)


@dataclass(slots=True)
class EffectiveDocument(DraftDocument):
    """The effective draft's text, placing each problem where its value was written: the targets file for an
    overridden value, the draft otherwise (the effective text itself is nobody's file)."""

    draft_doc: DraftDocument | None = None
    targets_doc: DraftDocument | None = None
    origins: dict[tuple[PathPart, ...], tuple[PathPart, ...]] = field(default_factory=dict)

    def place(self, problem: Problem) -> Problem:
        bare = Problem(problem.severity, problem.message, problem.path, code=problem.code, extra=problem.extra)
        for n in range(len(problem.path), 0, -1):
            origin = self.origins.get(tuple(problem.path[:n]))
            if origin is not None and self.targets_doc is not None:
                moved = Problem(problem.severity, problem.message, (*origin, *problem.path[n:]), code=problem.code,
                                extra=problem.extra)
                return self.targets_doc.place(moved)
        if self.draft_doc is not None:
            return self.draft_doc.place(bare)
        return super(EffectiveDocument, self).place(problem)


def load_effective(draft_path: str | os.PathLike[str], profile: str, *, text: str | None = None,
                   data: Mapping[str, Any] | None = None, keep_ids: bool = False) -> LoadResult:
    """The draft as ``profile`` sees it, validated, its problems placed in the draft or the targets file.

    ``text``: the draft as an editor holds it; ``data``: a draft's data to use instead of the draft's (promotion:
    what the source account has; its problems are then placed by key path in the draft, which may have other
    apps at those indexes). Raises :class:`TargetOverridesInvalid` for a broken targets file.
    """
    from tenantdeck.draft.emit import emit

    name = os.fspath(draft_path)
    own = load_draft(draft_path) if text is None else load_text(text, file=name)
    if data is None and not own.ok:
        return own
    overrides = read_target_overrides(draft_path)
    section = overrides.section(profile) if overrides is not None else None
    source = dict(data) if data is not None else own.doc.data
    effective = effective_data(source, profile, section, keep_ids=keep_ids)
    if effective.problems:
        assert overrides is not None
        raise TargetOverridesInvalid(sort_problems(overrides.doc.place(p) for p in effective.problems))
    shown = emit(effective.data)
    result = load_text(shown, file=name)
    doc = EffectiveDocument(name, shown, result.doc.data, draft_doc=own.doc,
                            targets_doc=overrides.doc if overrides is not None else None, origins=effective.origins)
    problems = [doc.place(Problem(p.severity, p.message, p.path, code=p.code, extra=p.extra)) for p in result.problems]
    return LoadResult(result.draft, sort_problems(problems), doc)


# --- ids a push was assigned ------------------------------------------------------------------------------------


def write_ids(draft_path: str | os.PathLike[str], profile: str, *, app_ids: Mapping[str, str] | None = None,
              widget_ids: Mapping[tuple[str, str], str] | None = None) -> bool:
    """Record ids a push to ``profile`` was assigned in the targets file (comments kept), never in the draft: the
    draft's own ids are its own account's. ``app_ids``: app name -> id; ``widget_ids``: (app name, widget name) ->
    id. An app or widget that already has an id there keeps it. Returns whether the file changed."""
    if not app_ids and not widget_ids:
        return False

    def change(apps: Any) -> bool:
        changed = False
        for name, new_id in (app_ids or {}).items():
            entry = _child(apps, name)
            if not entry.get("id"):
                entry.insert(0, "id", new_id)
                changed = True
        for (app_name, w_name), new_id in (widget_ids or {}).items():
            entry = _child(_child(_child(apps, app_name), "widgets"), w_name)
            if not entry.get("id"):
                entry.insert(0, "id", new_id)
                changed = True
        return changed

    return _edit_section_apps(draft_path, profile, change)


def write_values(draft_path: str | os.PathLike[str], profile: str, values: Mapping[tuple[str, ...], Any]) -> bool:
    """Write values into ``profile``'s section (comments kept): path below ``targets.<profile>.apps`` (app name,
    then keys; a widget by its name, a webhook by its id) -> value. ``--take-theirs`` on a target: the account's
    value becomes that target's own, so every later push or promotion keeps it. Returns whether the file changed."""
    def change(apps: Any) -> bool:
        changed = False
        for path, value in values.items():
            node = apps
            for part in path[:-1]:
                node = _child(node, part)
            if node.get(path[-1]) != value:
                node[path[-1]] = copy.deepcopy(value)
                changed = True
        return changed

    return bool(values) and _edit_section_apps(draft_path, profile, change)


def _child(node: Any, key: str) -> Any:
    """``node[key]``, made a mapping when it is missing or not one."""
    from ruamel.yaml.comments import CommentedMap

    if not isinstance(node.get(key), dict):
        node[key] = CommentedMap()
    return node[key]


def _edit_section_apps(draft_path: str | os.PathLike[str], profile: str, change: Any) -> bool:
    """Load the targets file keeping its comments, let ``change`` edit ``targets.<profile>.apps`` (it returns
    whether it changed anything), and save it atomically if so."""
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    from tenantdeck import safefile
    from tenantdeck.draft import yamlsource
    from tenantdeck.draft.save import write_atomic
    from tenantdeck.draft.yaml_escapes import escaping

    path = targets_path(draft_path)
    yaml = escaping(YAML())  # app names from the service are its keys: never a raw control or bidi character
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    doc = yaml.load(safefile.read_text(path, yamlsource.MAX_BYTES, beside=path.parent)) if path.exists() else None
    if not isinstance(doc, dict):
        doc = CommentedMap([("format", TARGETS_FORMAT), ("targets", CommentedMap())])
    if not change(_child(_child(_child(doc, "targets"), profile), "apps")):
        return False
    out = io.StringIO()
    yaml.dump(doc, out)
    write_atomic(path, out.getvalue(), backup=False, beside=path.parent)
    return True


def target_problems(draft_path: str | os.PathLike[str]) -> list[Problem]:
    """The problems of every target of the draft's targets file (``validate``): the file's own, then each
    target's effective draft's errors (and the warnings placed in the targets file). The draft itself is valid."""
    try:
        overrides = read_target_overrides(draft_path)
    except TargetOverridesInvalid as exc:
        return sort_problems([*exc.problems, *exc.warnings])
    if overrides is None:
        return []
    out: list[Problem] = list(overrides.warnings)
    for profile in overrides.model.targets:
        try:
            result = load_effective(draft_path, profile)
        except TargetOverridesInvalid as exc:
            out += exc.problems
            continue
        out += [p for p in result.problems if p.is_error or p.file == os.fspath(overrides.path)]
    return sort_problems(out)
