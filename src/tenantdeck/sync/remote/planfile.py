"""Reading a saved plan (``tenantdeck plan -o FILE``) for ``push FILE``: it is pushed only if what it would send is
exactly what it shows and records, and only if it was written by someone who holds the target's credentials.

A saved plan is a file: it travels through a pull request, is reviewed there as its ``changes`` (the plan text and
``plan.md`` are rendered from them), and is pushed on merge. Each operation carries both ``changes`` (what the
reviewer reads, what the history and the base record) and ``payload`` (the body the call sends). Nothing tied the two
together: an edit of ``payload`` alone was sent while the push printed and recorded the ``changes``, and the next
``diff`` showed our own value as someone else's dashboard change. So, before anything is read from the service:

1. **The file's shape** (:class:`PlanFile`, pydantic, strict types): every key of the right type, every operation
   of a step kind this version knows. A list where an object belongs is "FILE: operations[0].payload: expected an
   object (got a list)", never a Python error from deep inside the push.
2. **Its hash** (``plan_hash``): the hash of the operations as ``tenantdeck plan`` wrote them. A file whose
   operations (payloads or changes) were edited since no longer matches it: refused, naming both hashes. This is
   the hash the history records, the one ``plan -o`` announced. Which plan it is, is its ``plan_id`` (random,
   made with the plan): the journal is matched by it, so ``push FILE`` again resumes that file's runs and no
   other plan's that sends the same requests (trial L, L2); a file without one is refused.
3. **Its signature** (``signature``): an HMAC-SHA256 of the whole file but that key (:func:`signature`), keyed
   by :meth:`Target.plan_key <tenantdeck.targets.Target.plan_key>`, derived from the management key and secret
   ``plan -o`` read the service with and ``push`` writes with. The hash above is no signature: anyone can compute
   it again, so a plan edited with its hash made again was pushed (trial L, L1). Now a file written or edited by
   whoever lacks the target's credentials (the pull request job's artifact, changed on the way to the push job)
   is refused, and so is a plan made for another account, or before the credentials were rotated. Someone who
   holds the credentials can sign anything; they could also call the service directly.
4. **Each payload against what the plan shows** (:func:`disagreements`): a plan signed by whoever holds the
   credentials, by hand or by another tool, still sends only what it shows: each operation's payload is derived
   again from its own ``changes`` and the plan's snapshot of the resource (what an update lays the changes on)
   and must be exactly that. The only values a plan
   does not show are secrets: a payload holds each as a placeholder, allowed only at a secret field of that same
   resource of that same app, never elsewhere. Identity fields (the key, ``destructive``, the dependencies, each
   snapshot's fingerprint) are checked the same way, and so are the rules the plan builder refuses a value by
   (:mod:`tenantdeck.rules`: a widget name over 100 characters, an undocumented trigger), which a saved plan
   must not get around.

Any of these is an ``invalid_plan_file`` refusal (exit 1, README "Exit codes"): make the plan again. The
derivation mirrors how the kinds build payloads (:mod:`tenantdeck.sync.kinds`): ``tests/sync/conftest.py`` checks
every app's steps the sync tests plan against it, so a kind that changes its payload fails the suite first, not a
user's ``push FILE``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from tenantdeck import safefile
from tenantdeck.jsonlimits import MAX_JSON_DEPTH, too_deep
from tenantdeck.models import Draft, catalog
from tenantdeck.models.secrets import is_secret_state
from tenantdeck.problems import PathSyntaxError, format_path, parse_path
from tenantdeck.rules import (
    app_name_breaks_rule,
    unknown_triggers,
    webhook_id_breaks_rule,
    webhook_name_breaks_rule,
    widget_value_breaks_rule,
)
from tenantdeck.sync.kinds import STEPS
from tenantdeck.sync.kinds.base import flatten, unflatten
from tenantdeck.sync.placeholders import KEY as PLACEHOLDER_KEY
from tenantdeck.sync.placeholders import is_placeholder, secret_placeholder
from tenantdeck.sync.plan import FORMAT_VERSION, Plan, fingerprint_leaves, resource_key
from tenantdeck.sync.types import Step, app_key_for, is_unknown
from tenantdeck.textsafe import json_text

#: a saved plan's own identity (:attr:`Plan.plan_id`): hex, as ``plan -o`` writes it (it names journal files)
_PLAN_ID = re.compile(r"[0-9a-f]{16,64}")

#: at most this many problems are listed (a file that is wrong everywhere says so in one screen)
_MAX_LISTED = 12


class PlanFileInvalid(Exception):
    """The saved plan cannot be pushed: ``lines`` say where and why (``FILE: operations[0].payload: ...``)."""

    def __init__(self, path: Path, lines: list[str], *, unreadable: bool = False) -> None:
        self.path = path
        self.lines = lines
        #: the file itself could not be read (missing, a folder, a FIFO): nothing to do with what it holds
        self.unreadable = unreadable
        super().__init__("; ".join(lines))


# -- 1. the file's shape ------------------------------------------------------------------------------------------

StepName = Literal[tuple(STEPS)]  # type: ignore[valid-type]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class ChangeFile(_Strict):
    path: str
    label: str
    before: Any = None
    after: Any = None
    origin: Literal["local", "remote", "conflict"]
    secret: bool = False
    app: str = ""
    resource: str = ""


class StepFile(_Strict):
    key: str
    kind: StepName
    app_id: str | None
    app_name: str
    resource: str
    depends_on: list[str] = []
    destructive: bool = False
    changes: list[ChangeFile] = []
    payload: dict[str, Any] = {}
    app_key: str = ""
    rid: str = ""
    unchanged: int = 0


class ConflictFile(_Strict):
    app: str
    app_id: str | None
    resource: str
    path: str
    label: str
    base: Any = None
    draft: Any = None
    live: Any = None
    secret: bool = False
    message: str = ""
    kind: str = ""
    rid: str = ""
    invalid: bool = False
    key: str = ""


class NoteFile(_Strict):
    app: str
    message: str
    kind: str = "info"
    extra: dict[str, Any] = {}


class SummaryFile(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")
    skipped_deletions: int = 0


class PlanFile(BaseModel):
    """A saved plan as :meth:`Plan.to_json` writes it (other top-level keys, such as ``tool``, are ignored)."""

    model_config = ConfigDict(strict=True, extra="ignore")
    format_version: Literal[1]
    plan_hash: str
    plan_id: str = ""
    signature: str = ""
    operations: list[StepFile]
    created_at: float = 0.0
    draft_path: str = ""
    draft_sha256: str = ""
    profile: str | None = None
    base_url: str | None = None
    offline: bool = False
    allow_delete: bool = False
    summary: SummaryFile = SummaryFile()
    conflicts: list[ConflictFile] = []
    drift: list[ChangeFile] = []
    notes: list[NoteFile] = []
    fingerprints: dict[str, str] = {}
    snapshots: dict[str, dict[str, Any] | None] = {}
    unchanged_apps: int = 0
    existing_names: dict[str, list[str]] = {}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    return {dict: "an object", list: "a list", str: "text", type(None): "null"}.get(type(value), "a value")


#: pydantic's error type -> what the file should have held there, in the words of JSON
_EXPECTED = {"dict_type": "an object", "model_type": "an object", "model_attributes_type": "an object",
             "list_type": "a list", "string_type": "text", "int_type": "a whole number", "float_type": "a number",
             "bool_type": "true or false", "none_required": "null"}


def _shape_lines(path: Path, exc: ValidationError) -> list[str]:
    """Each pydantic error as ``FILE: KEY.PATH: expected X (got Y)``, once per place."""
    out: dict[str, str] = {}
    for err in exc.errors(include_url=False):
        loc = [part for part in err.get("loc", ()) if part not in ("str", "none")]  # a union's arm is no place
        where = format_path(loc) or "the file"
        kind = str(err.get("type", ""))
        if kind == "missing":
            text = "missing"
        elif kind == "extra_forbidden":
            text = "not a key of a saved plan"
        elif kind == "literal_error":
            if loc == ["format_version"]:
                text = (f"unsupported plan format_version {err.get('input')!r} (this tenantdeck reads "
                        f"{FORMAT_VERSION})")
            elif loc and loc[-1] == "kind":
                text = f"{err.get('input')!r} is not a step tenantdeck knows"
            else:
                text = f"expected one of {(err.get('ctx') or {}).get('expected', '')}"
        elif kind in _EXPECTED:
            text = f"expected {_EXPECTED[kind]} (got {_json_type(err.get('input'))})"
        else:
            text = f"not a value a saved plan holds there (got {_json_type(err.get('input'))})"
        out.setdefault(where, f"{path}: {where}: {text}")
    return list(out.values())


def _trimmed(lines: list[str]) -> list[str]:
    if len(lines) <= _MAX_LISTED:
        return lines
    return [*lines[:_MAX_LISTED], f"... and {len(lines) - _MAX_LISTED} more"]


def parse_plan(path: Path, raw: bytes, *, key: bytes) -> Plan:
    """The plan in ``raw`` (the bytes of ``path``), checked as the module docstring says, its signature with
    ``key`` (the pushing target's :meth:`~tenantdeck.targets.Target.plan_key`); raises :class:`PlanFileInvalid`."""
    if too_deep(raw):
        raise PlanFileInvalid(path, [f"{path}: nested more than {MAX_JSON_DEPTH} levels deep; not a saved plan"])
    try:
        data = json.loads(raw)
    except UnicodeDecodeError:
        raise PlanFileInvalid(path, [f"{path}: not UTF-8 text; not a saved plan"]) from None
    except json.JSONDecodeError as exc:
        raise PlanFileInvalid(path, [f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}"]) from None
    if not isinstance(data, dict):
        raise PlanFileInvalid(path, [f"{path}: expected an object with the plan's keys (got {_json_type(data)})"])
    try:
        PlanFile.model_validate(data)
    except ValidationError as exc:
        raise PlanFileInvalid(path, _trimmed(_shape_lines(path, exc))) from None
    if not data.get("signature"):
        raise PlanFileInvalid(path, [
            f"{path}: signature: missing: only a plan file `tenantdeck plan -o FILE` wrote (signed with the "
            "target's credentials) is pushed; make the plan again with `tenantdeck plan -o FILE`"])
    if not _PLAN_ID.fullmatch(data.get("plan_id", "")):
        raise PlanFileInvalid(path, [
            f"{path}: plan_id: {'missing' if not data.get('plan_id') else 'not an id `tenantdeck plan` writes'}: "
            "this file was not written by this version's `plan -o`; make the plan again with "
            "`tenantdeck plan -o FILE`"])
    plan = Plan.from_json(data)
    recorded, in_file = data["plan_hash"], plan.plan_hash()
    if in_file != recorded:
        raise PlanFileInvalid(path, [
            f"{path}: plan_hash: the operations are not the ones `tenantdeck plan` wrote (plan {recorded} recorded, "
            f"plan {in_file} in the file): it was changed after it was written"])
    if not hmac.compare_digest(str(data["signature"]).encode("utf-8", "surrogatepass"),
                               signature(data, key).encode("ascii")):
        raise PlanFileInvalid(path, [
            f"{path}: signature: does not match this file and the credentials of the target it is pushed to: the "
            "file was changed after `plan -o` wrote it, or it was made for another account or with "
            "other credentials (a rotated key or secret); make the plan again with `tenantdeck plan -o FILE` "
            "against this target"])
    found = disagreements(plan)
    if found:
        raise PlanFileInvalid(path, _trimmed([f"{path}: {line}" for line in found]))
    return plan


def read_plan(path: Path, *, key: bytes) -> Plan:
    """Read and check the saved plan at ``path`` (signed with ``key``, as :func:`parse_plan`); raises
    :class:`PlanFileInvalid` (a missing or unreadable file included: one line, no traceback)."""
    try:
        raw = safefile.read_bytes(path, safefile.STATE_MAX_BYTES)
    except OSError as exc:
        raise PlanFileInvalid(path, [f"cannot read plan {path}: {exc}"], unreadable=True) from None
    return parse_plan(path, raw, key=key)


# -- 3. its signature --------------------------------------------------------------------------------------------

#: how a signature names its algorithm (another one later is another prefix, never a silent change)
SIGNATURE_PREFIX = "hmac-sha256:"


def _signed_bytes(doc: Mapping[str, Any]) -> bytes:
    """What a signature covers: every key of the document but ``signature``, as canonical JSON (sorted keys, no
    spaces, ASCII), so the same JSON data has one form whatever indentation or escapes the file was written with."""
    body = {k: v for k, v in doc.items() if k != "signature"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def signature(doc: Mapping[str, Any], key: bytes) -> str:
    """The signature of a saved plan's document ``doc`` (as JSON reads it back) with ``key``."""
    return SIGNATURE_PREFIX + hmac.new(key, _signed_bytes(doc), hashlib.sha256).hexdigest()


def saved_text(plan: Plan, key: bytes) -> str:
    """The saved plan file ``plan -o`` writes: the plan's document and its :func:`signature` with ``key`` (the
    target's :meth:`~tenantdeck.targets.Target.plan_key`), signed as :func:`parse_plan` will read it back."""
    doc = json.loads(json_text(plan.to_json()))
    doc["signature"] = signature(doc, key)
    return json_text(doc, indent=2) + "\n"


# -- 4. each payload against what the plan shows ------------------------------------------------------------------


def _shown(value: Any) -> str:
    return "(none)" if value is None else json.dumps(value, ensure_ascii=True)[:80]


def _first_difference(sent: Any, expected: Any, prefix: str) -> str:
    """Where ``sent`` and ``expected`` first differ, as ``PATH: sends X, the plan shows Y``."""
    if isinstance(sent, Mapping) and isinstance(expected, Mapping) and not is_placeholder(sent):
        for key in sorted({*sent, *expected}, key=str):
            if sent.get(key, None) != expected.get(key, None) or (key in sent) != (key in expected):
                return _first_difference(sent.get(key), expected.get(key), f"{prefix}.{key}")
    where = prefix.lstrip(".")
    if is_placeholder(sent) or is_placeholder(expected):
        return f"{where}: a secret placeholder where the plan shows {_shown(expected)}"
    return f"{where}: sends {_shown(sent)}, the plan shows {_shown(expected)}"


#: the step kinds :meth:`_Derive.expected` derives a payload for: every step kind (``tests/sync/test_plan_file.py``
#: holds it to ``kinds.STEPS``; a new kind's steps get their rule here, docs/architecture.md "Adding a resource kind")
DERIVED = frozenset({
    "create_app", "delete_app", "set_extensions", "create_widget", "update_widget", "store_sms", "update_sms",
    "delete_sms", "store_extension_settings", "update_extension_settings", "delete_extension_settings",
    "upload_certificate", "create_webhook", "update_webhook", "delete_webhook", "add_triggers", "remove_triggers",
    "update_team", "map_settings"})


class _NoRule(Exception):
    """A step kind with no rule here: its payload cannot be checked, so a saved plan holding it is not pushed."""


class _Derive:
    """The payload one step sends, derived from what the plan shows (its changes, the snapshot it lays them on)."""

    def __init__(self, plan: Plan, index: int) -> None:
        self.op = plan.operations[index]
        self.kind, self.spec = STEPS[self.op.kind]
        self.snapshot: Mapping[str, Any] | None = plan.snapshots.get(resource_key(self.op))
        self.shown = {c.path: c.after for c in self.op.changes if not c.secret}
        self.secret = {c.path: c.after for c in self.op.changes if c.secret}
        self.problems: list[str] = []

    def body(self, base: Mapping[str, Any], sent: Any, *, keep: frozenset[str] = frozenset()) -> dict[str, Any]:
        """``base`` (leaves the plan holds) with the shown changes laid on it, each secret as the placeholder
        ``sent`` holds there (checked to name this very field), every other leaf as shown."""
        leaves = {p: v for p, v in base.items() if not is_unknown(v)}
        for path, after in self.shown.items():
            if after is None:
                leaves.pop(path, None)
            else:
                leaves[path] = after
        for path in self.secret:
            leaves.pop(path, None)
        sent_leaves = flatten(sent) if isinstance(sent, Mapping) else {}
        out: dict[str, Any] = {}
        for path, value in leaves.items():
            if self.kind.is_secret(path) or is_secret_state(value):
                continue  # a secret the plan does not change: sent as its placeholder (below), never as a state
            out[path] = value
        for path, holder in _placeholder_leaves(sent).items():
            if self._placeholder_ok(path, holder, base):
                out[path] = holder
        for path in keep:
            if path in sent_leaves:
                out[path] = sent_leaves[path]
        return unflatten(out)

    def _placeholder_ok(self, path: str, holder: Mapping[str, Any], base: Mapping[str, Any]) -> bool:
        """A placeholder is sent only for a secret the plan shows being set (``will rotate``), or one the resource
        already holds that an update sends back unchanged; and it names that very field of this app."""
        spec = holder.get(PLACEHOLDER_KEY)
        shown_set = path in self.secret and self.secret[path] != "(removed)"
        held = path not in self.secret and (self.kind.is_secret(path) or is_secret_state(base.get(path))) \
            and path in base
        if not (shown_set or held) or not isinstance(spec, Mapping):
            return False
        field = self.kind.secret_path.format(rid=self.op.rid, path=path)
        return (spec.get("app") == self.op.app_name and spec.get("field") == field
                and spec.get("app_id", self.op.app_id) == self.op.app_id
                and spec.get("source") in ("env", "draft", "live")
                and (spec.get("source") != "env" or isinstance(spec.get("var"), str)))

    def expected(self) -> dict[str, Any]:
        """The payload this step must carry (raises :class:`_NoRule` for a step kind not in :data:`DERIVED`)."""
        op, name = self.op, self.op.kind
        payload = op.payload
        if name in ("add_triggers", "remove_triggers"):
            return {"ids": [c.path for c in op.changes]}
        if self.spec.destructive:
            return {"ext": op.rid} if name == "delete_extension_settings" else {}
        if name == "create_app":
            return {k: self.shown.get(k) for k in ("name", "region", "version")}
        if name == "set_extensions":
            return {"enabled": sorted(p for p, on in self.shown.items() if on is True),
                    "disabled": sorted(p for p, on in self.shown.items() if on is False)}
        if name == "map_settings":
            return {"settings": dict(self.shown)}
        if name == "update_team":
            return {**{key: sorted(p for p, role in self.shown.items() if role == r)
                       for r, key in catalog.TEAM_LISTS.items()},
                    "collaboratorsToRemove": sorted(p for p, role in self.shown.items() if role is None)}
        if name == "upload_certificate":
            path, fingerprint = payload.get("path"), payload.get("fingerprint")
            if "path" in self.shown:
                path = self.shown["path"]
            return {"certificate": op.rid, "path": path if isinstance(path, str) else "",
                    "fingerprint": fingerprint if isinstance(fingerprint, str) else None}
        creates = self.spec.creates
        base: Mapping[str, Any] = {} if creates else (self.snapshot or {})
        if name in ("create_widget", "update_widget", "store_sms", "update_sms"):
            return {"settings": self.body(base, payload.get("settings"))}
        if name in ("store_extension_settings", "update_extension_settings"):
            return {"ext": op.rid, "settings": self._extension_settings(base, payload.get("settings"))}
        if name == "create_webhook":
            return {"id": op.rid, **catalog.WEBHOOK_CREATE_DEFAULTS, **self.body(base, payload)}
        if name == "update_webhook":
            kept = {p: v for p, v in base.items() if p not in catalog.WEBHOOK_WRITE_ONLY}
            return self.body(kept, payload)
        raise _NoRule(name)

    def _extension_settings(self, base: Mapping[str, Any], sent: Any) -> dict[str, Any]:
        """An extension's settings, with its removal lists: ids of the items the plan's snapshot holds that the
        shown value of the list leaves out (a create removes none)."""
        from tenantdeck.sync.kinds.extension_settings import BY_ID, _item_id

        spec = BY_ID.get(self.op.rid)
        removals = {removal: items for items, removal in spec.removals} if spec is not None else {}
        out = self.body({p: v for p, v in base.items() if p not in removals}, sent)
        for removal, items in removals.items():
            if self.spec.creates:
                out[removal] = []
                continue
            had = _ids(base.get(items), _item_id)
            now = self.shown[items] if items in self.shown else base.get(items)
            kept = set(_ids(now, _item_id))
            wanted = {i for i in had if i not in kept}
            sent_ids = sent.get(removal) if isinstance(sent, Mapping) else None
            # the draft's list decides what is kept; the plan shows it when it changed. Unchanged, the plan may
            # still remove what the service added since the base (drift): only ids the snapshot held, never others
            if isinstance(sent_ids, list) and all(i in had for i in sent_ids) and wanted <= set(sent_ids):
                out[removal] = sent_ids
            else:
                out[removal] = sorted(wanted, key=str)
        return out


def _ids(items: Any, item_id: Any) -> list[str | int]:
    """The ids of a list of items (anything else holds none), as the service names them."""
    found = (item_id(x) for x in items) if isinstance(items, list) else ()
    return [i for i in found if isinstance(i, (str, int)) and not isinstance(i, bool)]


def _placeholder_leaves(value: Any, prefix: str = "") -> dict[str, Mapping[str, Any]]:
    """Every placeholder inside ``value`` by its dotted path."""
    out: dict[str, Mapping[str, Any]] = {}
    if is_placeholder(value):
        return {prefix.rstrip("."): value}
    if isinstance(value, Mapping):
        for key, item in value.items():
            out.update(_placeholder_leaves(item, f"{prefix}{key}."))
    return out


def _breaks_rule(op: Step, shown: Mapping[str, Any]) -> str | None:
    """Why the plan builder would have refused a value this step shows (the same rules, :mod:`tenantdeck.rules`,
    that ``diff``/``plan`` report as refused values): a saved plan is not a way around them."""
    if op.kind in ("create_widget", "update_widget"):
        return next((why for path, value in shown.items()
                     if value is not None and (why := widget_value_breaks_rule(path, value))), None)
    if op.kind == "create_app":
        return app_name_breaks_rule(str(shown.get("name", "")))
    if op.kind == "create_webhook":
        return webhook_id_breaks_rule(op.rid) or webhook_name_breaks_rule(str(shown.get("name", "")))
    if op.kind == "update_webhook" and "name" in shown:
        return webhook_name_breaks_rule(str(shown["name"]))
    if op.kind == "add_triggers" and (unknown := unknown_triggers(c.path for c in op.changes)):
        return f"{', '.join(unknown)}: not documented trigger id(s)"
    return None


def disagreements(plan: Plan) -> list[str]:
    """Where a (shape-checked) plan would send or record something it does not show: one line per place."""
    out: list[str] = []
    keys: set[str] = set()
    for index, op in enumerate(plan.operations):
        at = f"operations[{index}]"
        _, spec = STEPS[op.kind]
        if op.app_key != app_key_for(op.app_id, op.app_name):
            out.append(f"{at}.app_key: {op.app_key!r} is not the key of app {op.app_name!r} ({op.app_id or 'new'})")
        if op.key != f"{op.app_key}/{op.kind}/{op.rid}".rstrip("/") or op.key in keys:
            out.append(f"{at}.key: {op.key!r} does not name this operation's app, kind and resource once")
        for dep in op.depends_on:
            if dep not in keys:
                out.append(f"{at}.depends_on: {dep!r} is no earlier operation of the plan")
        keys.add(op.key)
        if op.destructive != spec.destructive:
            out.append(f"{at}.destructive: {op.kind} is {'' if spec.destructive else 'not '}destructive")
        if spec.destructive and not plan.allow_delete:
            out.append(f"{at}: {op.kind} in a plan made without --allow-delete")
        rkey = resource_key(op)
        snapshot = plan.snapshots.get(rkey)
        if rkey in plan.snapshots and fingerprint_leaves(snapshot) != plan.fingerprints.get(rkey):
            out.append(f"snapshots.{rkey}: is not the state its fingerprint records")
        derive = _Derive(plan, index)
        if not spec.creates and op.kind not in ("delete_app",) and op.app_id and rkey not in plan.fingerprints:
            out.append(f"{at}: no fingerprint of the resource it changes (fingerprints.{rkey})")
        if op.kind in ("update_widget", "update_sms", "update_webhook", "update_extension_settings") and \
                snapshot is None:
            out.append(f"{at}: no snapshot of the resource it updates (snapshots.{rkey})")
            continue
        try:
            expected = derive.expected()
        except _NoRule:
            out.append(f"{at}.kind: this version cannot check what a saved {op.kind} sends; push the draft instead")
            continue
        except (TypeError, AttributeError):  # paths of changes and snapshot that cannot make one object
            out.append(f"{at}: its changes and the snapshot of its resource do not make one payload")
            continue
        if op.kind == "create_app" and not all(isinstance(expected.get(k), str) for k in ("name", "region")):
            out.append(f"{at}.changes: a new app's name and region are not shown")
        if (why := _breaks_rule(op, derive.shown)) is not None:
            out.append(f"{at}.changes: {why}; a push does not send it (fix the draft, then make the plan again)")
        if op.payload != expected:
            out.append(f"{at}.payload: not what the plan shows: "
                       f"{_first_difference(op.payload, expected, '')}")
    return out


def _source(spec: Mapping[str, Any]) -> str:
    if spec.get("source") == "env":
        return f"${{{spec.get('var')}}}"
    return "the service's current value" if spec.get("source") == "live" else "the value written in the draft"


def secret_sources(plan: Plan, draft: Draft) -> list[str]:
    """Where a secret placeholder of ``plan`` would read its value from elsewhere than ``draft`` says now: a plan
    shows a secret only as "will rotate", so the variable it reads is not shown either, and an edited ``var``
    (``TENANTDECK_SECRET``) would send that variable's value. Each placeholder must read what the draft's field
    names (its ``${VAR}``, its literal, or the service's value), and name a place in the draft as ``apps[N]...``."""
    out: list[str] = []
    for index, op in enumerate(plan.operations):
        for path, holder in _placeholder_leaves(op.payload).items():
            spec = holder[PLACEHOLDER_KEY]
            source = "live" if spec.get("source") == "live" else "draft"
            want = secret_placeholder(draft, op.app_name, str(spec.get("field")), source=source,
                                      app_id=op.app_id)[PLACEHOLDER_KEY]
            at = f"operations[{index}].payload.{path}"
            if (spec.get("source"), spec.get("var")) != (want.get("source"), want.get("var")):
                out.append(f"{at}: the plan reads this secret from {_source(spec)}, the draft from "
                           f"{_source(want)}; make the plan again")
                continue
            where = spec.get("path")
            try:
                parse_path(where) if isinstance(where, str) else None
            except PathSyntaxError:
                where = None
            if not isinstance(where, str):
                out.append(f"{at}: the placeholder's path is not a key path of the draft")
    return out


__all__ = ["SIGNATURE_PREFIX", "PlanFile", "PlanFileInvalid", "disagreements", "parse_plan", "read_plan",
           "saved_text", "secret_sources", "signature"]
