"""Fleet policies as data: the rules file beside a draft, read with located errors.

``<draft stem>.policies.yaml`` (``tenantdeck.policies.yaml`` beside ``tenantdeck.yaml``), committed with the draft::

    format: 1
    policies:
      - name: https-webhooks
        select: {labels: {tier: gold}}           # which apps (all when left out)
        check: {field: "webhooks[*].webhookURL", matches: "^https://"}
        severity: error                           # error blocks a push; warning informs
        message: webhooks must use https

A check is one CEL expression over ``app`` (the app's normalised draft object: :mod:`tenantdeck.policies.evaluator`),
or one of a few shorthands on a ``field`` path: ``equals``, ``one_of``, ``matches``, ``required``, ``forbidden``,
``count`` (``{min, max}``), ``contains`` (the list holds a value) and ``same`` (every selected app holds the same
value). Paths are checked against the
draft's models (did-you-mean on a typo); a CEL expression is compiled when the file is read, so a rule that does
not compile is an error at its line, and the other rules still run.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tenantdeck.problems import PathPart, Problem, Severity, did_you_mean

FORMAT = 1
SUFFIX = ".policies.yaml"
#: the shorthands, each the name of its key in a check (``field`` says where it looks)
SHORTHANDS = ("equals", "one_of", "matches", "required", "forbidden", "count", "same", "contains")
#: the longest CEL check read: the library compiles about 7 s per MB of expression (a 1 MB rules file of one
#: check would hold every command reading it for as long), and no one reviews a check longer than a page
CEL_MAX = 16_384


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Count(_Model):
    min: int | None = Field(None, ge=0, description="At least this many")
    max: int | None = Field(None, ge=0, description="At most this many")


class Check(_Model):
    """Exactly one of ``cel`` or a shorthand (with ``field``)."""

    cel: str | None = Field(None, max_length=CEL_MAX, description="A CEL expression over `app` that is true when "
                            "the app complies")
    field: str | None = Field(None, description="Where a shorthand looks: `team.admins`, `widgets[*].style.primary_"
                              "color`, `settings['core.conversations.updateOnReplies']`")
    equals: Any = Field(None, description="The value must be exactly this")
    one_of: list[Any] | None = Field(None, description="The value must be one of these")
    matches: str | None = Field(None, description="The value (a text) must match this regular expression")
    required: bool | None = Field(None, description="true: the value must be written (not absent, not empty)")
    forbidden: bool | None = Field(None, description="true: the value must not be written")
    count: Count | None = Field(None, description="The list (or mapping) at `field` has between min and max items")
    same: bool | None = Field(None, description="true: every selected app holds the same value at `field`")
    contains: Any = Field(None, description="The list at `field` holds this value (a text, number or true/false)")

    @model_validator(mode="after")
    def _one_kind(self) -> Check:
        given = [name for name in ("cel", *SHORTHANDS) if name in self.model_fields_set]
        if len(given) != 1:
            raise ValueError("a check is exactly one of cel, " + ", ".join(SHORTHANDS) +
                             (f" (this one has {', '.join(given)})" if given else " (this one has none)"))
        if given[0] == "cel" and self.field is not None:
            raise ValueError("`field` goes with a shorthand; a cel check reads the app itself")
        if given[0] != "cel" and not self.field:
            raise ValueError(f"`{given[0]}` needs a `field`: the path it checks")
        if given[0] == "contains" and type(self.contains) not in (str, int, float, bool):
            raise ValueError("contains: one value the list must hold (a text, number or true/false); for several, "
                             "write a rule for each")
        return self

    @property
    def kind(self) -> str:
        return next(name for name in ("cel", *SHORTHANDS) if name in self.model_fields_set)


class Select(_Model):
    """Which apps a rule is about: every pattern list that is given must match (globs, case-sensitive)."""

    names: list[str] | None = Field(None, description="App name patterns (`Acme*`)")
    ids: list[str] | None = Field(None, description="App id patterns")
    labels: dict[str, str] | None = Field(None, description="Labels the app's `labels:` must hold (`tier: gold`)")


#: a rule's name as the model takes it (``Rule.name``): what a message may quote before the rule validates
_RULE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}")


class Rule(_Model):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=80,
                      description="The rule's name (letters, digits, `-`, `_`, `.`): what --allow-violation names")
    description: str | None = None
    select: Select | None = None
    check: Check
    severity: Literal["error", "warning"] = "error"
    message: str = Field(description="What a violation says")
    fix: Any = Field(None, description="The value `tenantdeck policy fix` writes (default: the `equals` value, "
                     "the first of `one_of`, the `contains` value, the majority's for `same`)")


class PoliciesFile(_Model):
    format: Literal[1] = 1
    policies: list[Rule] = Field(default_factory=list)


@dataclass(slots=True)
class PolicySet:
    """The rules of one file that can run, and the located problems of those that cannot (they never stop the
    others)."""

    path: Path | None = None
    rules: list[Rule] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    #: what ``validate`` says of the file besides, never blocking a rule or a push: a comment holding a raw bidi or
    #: control character (:func:`tenantdeck.draft.raw_scalars.comment_problems`)
    warnings: list[Problem] = field(default_factory=list)
    #: rule name -> compiled CEL program (the ``cel`` package's), for cel checks
    programs: dict[str, Any] = field(default_factory=dict)
    #: rule name -> (its CEL tree, to estimate its cost per app, or None when the estimate at load holds for every
    #: app; the estimate at load, in steps): :mod:`tenantdeck.policies.celcost`
    costs: dict[str, tuple[Any, int]] = field(default_factory=dict)
    #: rule name -> its field path, parsed
    paths: dict[str, tuple[PathPart, ...]] = field(default_factory=dict)
    #: rule name -> its index among the file's rules (rules that failed to load count too)
    indexes: dict[str, int] = field(default_factory=dict)
    #: the file as read, to place a problem found while running a rule (positions composed on first use)
    doc: Any = None

    def __bool__(self) -> bool:
        return bool(self.rules or self.problems)

    def rule(self, name: str) -> Rule | None:
        return next((r for r in self.rules if r.name == name), None)

    def check_position(self, rule: Rule) -> tuple[tuple[PathPart, ...], str, int, int]:
        """(key path, file, line, column) of ``rule``'s check: where a problem found while running it points."""
        path: tuple[PathPart, ...] = ("policies", self.indexes.get(rule.name, 0), "check", rule.check.kind)
        line, column = self.doc.locate(path) if self.doc is not None else (0, 0)
        return path, str(self.path or ""), line, column


def policies_path(draft_path: Path) -> Path:
    """``tenantdeck.yaml`` -> ``tenantdeck.policies.yaml`` beside it."""
    return draft_path.with_name(draft_path.stem + SUFFIX)


# -- field paths -------------------------------------------------------------------------------------------------


#: ``.name``, ``[*]``, ``[3]`` or ``['a.dotted.key']``
_PART = re.compile(r"""\.?([A-Za-z_][A-Za-z0-9_-]*)|\[\*\]|\[(\d+)\]|\[(['"])(.+?)\3\]""")
WILDCARD = "*"


def parse_field(text: str) -> tuple[PathPart, ...]:
    """``widgets[*].style.primary_color`` -> ``("widgets", "*", "style", "primary_color")``; raises ValueError."""
    parts: list[PathPart] = []
    pos = 0
    while pos < len(text):
        m = _PART.match(text, pos)
        if m is None or m.end() == pos or (pos == 0 and text.startswith(".")):
            raise ValueError(f"cannot read the path {text!r} at {text[pos:]!r}; write it as "
                             "widgets[*].style.primary_color or settings['core.conversations.updateOnReplies']")
        if m.group(1) is not None:
            parts.append(m.group(1))
        elif m.group(2) is not None:
            parts.append(int(m.group(2)))
        elif m.group(4) is not None:
            parts.append(m.group(4))
        else:
            parts.append(WILDCARD)
        pos = m.end()
    if not parts:
        raise ValueError("an empty path")
    return tuple(parts)


def check_field(parts: Sequence[PathPart]) -> str | None:
    """Why ``parts`` names nothing an app can hold (with a did-you-mean), or None when it does. Checked against the
    draft's models, the widget catalog and the extension catalog; keys of free mappings (settings, labels) pass."""
    from tenantdeck.draft.pydantic_problems import field_names, type_at
    from tenantdeck.models import extension_catalog
    from tenantdeck.models.app import App

    model_path: list[PathPart] = []
    for i, part in enumerate(parts):
        if part == WILDCARD or isinstance(part, int):
            model_path.append(0)
            continue
        if model_path and model_path[0] == "extension_settings" and len(model_path) == 1:
            ids = [s.id for s in extension_catalog.EXTENSIONS]
            if part not in ids:
                return f"no extension {part!r} has settings{did_you_mean(part, ids)}"
            spec = extension_catalog.BY_ID[str(part)]
            rest = [p for p in parts[i + 1:] if p != WILDCARD and not isinstance(p, int)]
            names = [s.key for s in spec.settings]
            if rest and rest[0] not in names:
                return f"{part} has no setting {rest[0]!r}{did_you_mean(rest[0], names)}"
            return None
        known = field_names(App, model_path)
        if known:
            if part not in known:
                where = ".".join(str(p) for p in model_path if not isinstance(p, int)) or "an app"
                return f"{where} has no field {part!r}{did_you_mean(part, known)}"
        elif type_at(App, [*model_path, part]) is None and type_at(App, model_path) is None:
            return f"nothing at {part!r}"
        model_path.append(part)
    return None


def holds_list(parts: Sequence[PathPart]) -> bool:
    """Whether a field path (already checked by :func:`check_field`) can hold a list: a list field of the models
    (``extensions.enabled``, ``webhooks[*].triggers``), a settings key (true/false or a list of texts), or an
    extension setting of list type (``extension_settings.profanity-filter.badwords``)."""
    import types
    import typing

    from tenantdeck.draft.pydantic_problems import type_at
    from tenantdeck.models import extension_catalog
    from tenantdeck.models.app import App

    if len(parts) == 3 and parts[0] == "extension_settings" and str(parts[1]) in extension_catalog.BY_ID:
        spec = extension_catalog.BY_ID[str(parts[1])]
        return any(s.key == parts[2] and s.type in ("strings", "objects") for s in spec.settings)

    def lists(tp: Any) -> bool:  # a list, or a union (optional, annotated) with a list arm
        origin = typing.get_origin(tp)
        if origin in (list, tuple):
            return True
        if origin is typing.Annotated:
            return lists(typing.get_args(tp)[0])
        return origin in (typing.Union, types.UnionType) and any(lists(arm) for arm in typing.get_args(tp))

    return lists(type_at(App, [0 if p == WILDCARD else p for p in parts]))


# -- the fields a CEL check reads ---------------------------------------------------------------------------------
#
# Checked when the file is read against what an app can hold, as a shorthand's path is (check_field). Why: CEL reads
# a missing field as an error at run time (or ``has()`` as false), so ``app.webhoks.all(w, w.enabled)`` was a
# per-app *warning* and, guarded with ``has()`` as that warning advised, a rule that never fires: a typo turned a
# rule off in silence (issue 33). The library has no declarations or type checker (its ``Program`` offers
# ``variables()`` and ``functions()`` only), so the expression's field chains are read from its tree
# (:func:`tenantdeck.policies.celcost.parse`). A comprehension's variable stands for an item of the list it goes
# over (``w`` in ``app.webhooks.all(w, ...)`` reads ``webhooks[*]``); over a mapping it stands for a key, and what
# follows it is not checked. A key of a free mapping (``settings``, ``labels``) is left to
# :func:`tenantdeck.policies.checks.fleet_problems`, which knows the draft.

#: a chain's path in the app, or None when it does not read the app (a literal, a key, a computed value)
_AppPath = tuple[PathPart, ...] | None


def unknown_cel_field(tree: tuple[Any, ...]) -> str | None:
    """Why the first field chain of ``tree`` that names nothing an app holds is wrong (with a did-you-mean), or
    None."""
    for parts in cel_chains(tree):
        reason = check_field(parts)
        if reason is not None:
            return f"{_written(parts)}: {reason}"
    return None


def cel_chains(tree: tuple[Any, ...]) -> list[tuple[PathPart, ...]]:
    """Every path in the app the expression reads (``("webhooks", "*", "enabled")``), longest first per chain."""
    found: list[tuple[PathPart, ...]] = []
    for parts in _cel_walk(tree, {"app": ()}):
        if parts and parts not in found:
            found.append(parts)
    return found


def _cel_walk(node: tuple[Any, ...], env: dict[str, _AppPath]) -> Iterator[tuple[PathPart, ...]]:
    kind = node[0]
    if kind in ("select", "index"):
        parts = _cel_path(node, env)
        if parts is not None:
            yield parts
        yield from _cel_walk(node[1], env)
        if kind == "index":
            yield from _cel_walk(node[2], env)
        return
    if kind == "macro":
        _, _, target, names, bodies = node
        yield from _cel_walk(target, env)
        inner = dict(env)
        over = _cel_path(target, env)
        for variable in names[:-1]:
            inner[variable] = None  # an index or a key
        inner[names[-1]] = (*over, WILDCARD) if over is not None and _is_list(over) else None
        for body in bodies:
            yield from _cel_walk(body, inner)
        return
    from tenantdeck.policies.celcost import children

    for child in children(node):
        yield from _cel_walk(child, env)


def _cel_path(node: tuple[Any, ...], env: dict[str, _AppPath]) -> _AppPath:
    """The path in the app a chain reads (``app.webhooks[0].name`` -> ``("webhooks", "*", "name")``), or None."""
    kind = node[0]
    if kind == "ident":
        return env.get(node[1])
    if kind == "select":
        base = _cel_path(node[1], env)
        return None if base is None else (*base, node[2])
    if kind == "index":
        base = _cel_path(node[1], env)
        if base is None:
            return None
        key = node[2]
        if key[0] == "lit" and isinstance(key[1], str):
            return (*base, key[1])
        return (*base, WILDCARD) if _is_list(base) else None  # a computed key of a mapping: not checked
    return None


def _is_list(parts: tuple[PathPart, ...]) -> bool:
    """Whether the app holds a list at ``parts`` (a comprehension over it binds its items, not keys)."""
    from tenantdeck.draft.pydantic_problems import _arms, type_at
    from tenantdeck.models.app import App

    tp = type_at(App, [0 if p == WILDCARD else p for p in parts])
    return tp is not None and any(typing.get_origin(arm) in (list, tuple) for arm in _arms(tp))


def _written(parts: tuple[PathPart, ...]) -> str:
    """``app.webhooks[*].name`` as the rule's reader would write it."""
    out = "app"
    for part in parts:
        out += "[*]" if part == WILDCARD else f".{part}" if str(part).isidentifier() else f"['{part}']"
    return out


# -- reading -----------------------------------------------------------------------------------------------------


def load_policies(path: Path, *, beside: Path | None = None) -> PolicySet:
    """Read ``path``: every rule that is well formed and compiles, and a located problem for each one that is not.
    A missing file is an empty set; a file that is not YAML at all is one problem. ``beside``: the draft's folder,
    when ``path`` is the file beside the draft (not one a ``--policies`` option named): it must lie there after
    every link (a pull request can commit it as a link to anywhere; :func:`tenantdeck.safefile.beside`)."""
    from tenantdeck.draft.configyaml import ConfigFileError, read_file
    from tenantdeck.draft.load import DraftDocument

    result = PolicySet(path=path)
    if not (path.exists() or (beside is not None and path.is_symlink())):  # a link to nothing beside: said
        return result
    try:
        data, text = read_file(path, "policies file", beside=beside)
    except ConfigFileError as exc:
        result.problems.append(exc.problem)
        return result
    doc = DraftDocument(str(path), text, data)
    result.doc = doc
    from tenantdeck.draft.raw_scalars import comment_problems

    result.warnings = comment_problems(text, str(path), data=data)

    def problem(message: str, loc: Sequence[PathPart], code: str) -> None:
        line, column = doc.locate(tuple(loc))
        result.problems.append(Problem(Severity.ERROR, message, tuple(loc), str(path), line, column, code))

    if data is None:
        return result
    if not isinstance(data, dict):
        problem("a policies file is a mapping with `format: 1` and `policies:`", (), "policy-file")
        return result
    head = {k: v for k, v in data.items() if k != "policies"}
    try:
        PoliciesFile.model_validate({**head, "policies": []})
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            problem(_words(err), tuple(err.get("loc", ())), "policy-file")
    raw_rules = data.get("policies") or []
    if not isinstance(raw_rules, list):
        problem("`policies` is a list of rules", ("policies",), "policy-file")
        return result
    seen: set[str] = set()
    for i, raw in enumerate(raw_rules):
        try:
            rule = Rule.model_validate(raw)
        except ValidationError as exc:
            named = _named(raw)
            for err in exc.errors(include_url=False):
                problem(named + _words(err), ("policies", i, *err.get("loc", ())), "policy-rule")
            continue
        if rule.name in seen:
            problem(f"a second rule named {rule.name!r}: names must be unique", ("policies", i, "name"), "policy-rule")
            continue
        refused = _prepare(rule, result)
        if refused is not None:
            reason, key = refused
            problem(f"rule {rule.name}: {reason}", ("policies", i, "check", key), "policy-rule")
            continue
        seen.add(rule.name)
        result.indexes[rule.name] = i
        result.rules.append(rule)
    return result


def _prepare(rule: Rule, into: PolicySet) -> tuple[str, str] | None:
    """Compile the rule's CEL, or parse and check its field path (and compile its pattern); (why it cannot run,
    the check's key that says so), or None."""
    check = rule.check
    if check.kind == "cel":
        from tenantdeck.policies.cellib import cel

        try:
            program = cel.compile(check.cel or "")
        except (ValueError, RuntimeError, TypeError) as exc:
            return f"the CEL expression does not compile: {cel_syntax_error(exc)}", "cel"
        reason = _bound(rule, check.cel or "", into)
        if reason is not None:
            return reason, "cel"
        into.programs[rule.name] = program
        return None
    try:
        parts = parse_field(check.field or "")
    except ValueError as exc:
        return str(exc), "field"
    reason = check_field(parts)
    if reason is None and check.kind == "contains" and not holds_list(parts):
        reason = "is not a list, so `contains` cannot hold a value there (compare it with `equals` or `one_of`)"
    if reason is not None:
        return f"field {check.field}: {reason}", "field"
    if check.kind == "matches":
        from tenantdeck.policies.patterns import PatternError, compile_pattern

        try:
            compile_pattern(check.matches or "")
        except PatternError as exc:
            return f"matches: {exc}", "matches"
    into.paths[rule.name] = parts
    return None


def _bound(rule: Rule, source: str, into: PolicySet) -> str | None:
    """Why a compiled CEL check cannot run as written: a field no app holds (:func:`unknown_cel_field`),
    over its cost budget (:mod:`tenantdeck.policies.celcost`), a pattern the engine refuses; or None (its cost and
    tree kept in ``into``)."""
    from tenantdeck.policies import celcost
    from tenantdeck.policies.patterns import cel_pattern_problem

    try:
        tree = celcost.parse(source)
        unknown = unknown_cel_field(tree)
        if unknown is not None:  # checked before the cost: a typo is the likelier mistake
            return f"reads {unknown}"
        steps = celcost.steps(tree, celcost.APP)
    except celcost.Unbounded as exc:
        return f"its cost cannot be bounded: {exc} (docs/policies.md: what a check may cost)"
    except celcost.OverBudget as exc:
        return (f"over its cost budget: even on an app with one item in each list it would take more than "
                f"{exc.steps:,} steps, and a check may take {celcost.EVAL_BUDGET:,} (nested comprehensions multiply: "
                f"docs/policies.md)")
    for pattern in celcost.literal_patterns(tree):
        problem = cel_pattern_problem(pattern)
        if problem is not None:
            return f"matches({pattern!r}): {problem}"
    into.costs[rule.name] = (tree if celcost.data_dependent(tree) else None, steps)
    return None


_CEL_ERROR = re.compile(r"ERROR: <input>:(\d+):(\d+): (?:Syntax error: )?(.*)")
_CEL_RUST_DEBUG = re.compile(r'\bmsg: "((?:[^"\\]|\\.)*)"')
_CEL_RECURSION = re.compile(r"Recursion limit of (\d+) exceeded")


def cel_syntax_error(exc: BaseException) -> str:
    """The library's compile error in a reader's words: where in the expression (line, column) and what, without
    echoing the whole expression back (it is at the located line already) or the parser's internal debug text
    (a deeply nested expression surfaces as ``OtherError(ParseError { ... msg: "Recursion limit of 96 exceeded" })``).
    """
    found = _CEL_ERROR.search(str(exc))
    if found is None:
        return _first_line(exc)
    line, column, what = found.groups()
    debug = _CEL_RUST_DEBUG.search(what)
    if debug is not None:
        what = debug.group(1)
    deep = _CEL_RECURSION.search(what)
    if deep is not None:
        what = f"nested more than {deep.group(1)} levels deep (brackets, calls and operators count); split it"
    where = f"column {column}" if line == "1" else f"line {line}, column {column}"
    return f"{where}: {what}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _named(raw: Any) -> str:
    """``rule NAME: `` for a rule that does not validate but has a readable name, so the message says which rule
    (what `--allow-violation` and the history name it by)."""
    name = raw.get("name") if isinstance(raw, dict) else None
    if isinstance(name, str) and _RULE_NAME.fullmatch(name):
        return f"rule {name}: "
    return ""


def _words(err: Any) -> str:
    kind = err.get("type", "")
    if kind == "string_too_long" and tuple(err.get("loc", ()))[-2:] == ("check", "cel"):
        return (f"the CEL expression is {len(err.get('input') or ''):,} characters; a check may be {CEL_MAX:,} "
                f"(split it into several rules)")
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required"
    message = str(err.get("msg", "invalid value"))
    return message.removeprefix("Value error, ")


__all__ = ["FORMAT", "SHORTHANDS", "Check", "PoliciesFile", "PolicySet", "Rule", "Select", "cel_chains",
           "check_field", "holds_list", "load_policies", "parse_field", "policies_path"]
