"""One module per resource kind, and the registry of them.

Each kind (:class:`~tenantdeck.sync.kinds.base.Kind`) says how its resources are cut out of a canonical app and
written back, how its fields are labelled and which are secret, which plan steps it has and how a step that
succeeded updates the base snapshot. Everything generic (compare, plan, settle, the push executor, render, the
journal) asks the registry below instead of switching on a kind's name. Kinds are pure: the API call each step
makes is :data:`tenantdeck.sync.remote.ops.CALLS`.

The canonical form of a whole app is assembled here too (:func:`canonical_app_from_draft`,
:func:`canonical_app_from_remote`): each kind builds its own part from the rules of :mod:`tenantdeck.sync.canonical`.

Adding a kind: one module here, one entry in :data:`KINDS`, one call per step in ``remote.ops.CALLS``
(``docs/architecture.md``, "Adding a resource kind").
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tenantdeck.sync.kinds import (
    app,
    certificates,
    extension_settings,
    extensions,
    settings,
    sms,
    team,
    triggers,
    webhook,
    widget,
)
from tenantdeck.sync.kinds.base import Kind

if TYPE_CHECKING:
    from tenantdeck.models import Draft
    from tenantdeck.sync.types import RemoteAppBundle, StepKind

#: every kind but the app's own, in the order the steps of one app run after ``create_app``
_PARTS: tuple[Kind, ...] = (extensions.KIND, widget.KIND, sms.KIND, extension_settings.KIND, certificates.KIND,
                            webhook.KIND, triggers.KIND, team.KIND, settings.KIND)
#: the app kind; it is handed the others, since a new app's base holds the empty section of each
APP = app.AppKind(_PARTS)
#: Every kind, in the order the steps of one app run.
KINDS: tuple[Kind, ...] = (APP, *_PARTS)

BY_NAME: dict[str, Kind] = {kind.name: kind for kind in KINDS}
ORDER: dict[str, int] = {kind.name: i for i, kind in enumerate(KINDS)}
#: step kind ("create_widget") -> (its resource kind, its description)
STEPS: dict[str, tuple[Kind, StepKind]] = {s.name: (kind, s) for kind in KINDS for s in kind.steps}


def kind(name: str) -> Kind:
    return BY_NAME[name]


def step_kind(name: str) -> StepKind:
    return STEPS[name][1]


def kind_of_step(name: str) -> Kind:
    return STEPS[name][0]


def label(kind_name: str, path: str) -> str:
    """The human label of ``path`` inside a resource of ``kind_name`` (falls back to the path itself)."""
    found = BY_NAME.get(kind_name)
    return found.label(path) if found is not None else path


def is_secret(kind_name: str, path: str) -> bool:
    found = BY_NAME.get(kind_name)
    return found is not None and found.is_secret(path)


def empty_app(app_id: str, name: str, region: str, version: str) -> dict[str, object]:
    """A canonical app with nothing in it yet (what the base records right after ``create_app``)."""
    return APP.empty_app(app_id, name, region, version)


#: one kind's part of a canonical app, with the draft app's fields it was made from (``Kind.reads``)
Part = tuple[tuple[Any, ...], dict[str, Any]]


def canonical_app_from_draft(draft: Draft, index: int, *, secret_key: bytes, env: Mapping[str, str],
                             parts: dict[str, Part] | None = None) -> dict[str, Any]:
    """The canonical form of ``draft.apps[index]``: widgets resolved against their presets, defaults filled,
    secrets fingerprinted (reference resolved from ``env``) or recorded as an unresolved ``{"ref": VAR}``.

    Each kind builds its own part (``Kind.from_draft``, beside its ``from_remote``, so both sides of one kind are
    normalised in one place). Call it on a draft that validated; an invalid widget is still normalised as far as
    its values go.

    ``parts`` (kind name -> its last part, updated here) lets a caller that canonicalises the same app again after
    an edit of one section (the editor's change states) reuse each kind's part whose ``Kind.reads`` fields are the
    very same objects as last time: the session's re-validation keeps the untouched fields' models. The caller
    keeps the presets, ``secret_key`` and ``env`` the same between such calls (else it passes a fresh dict). The
    parts are shared with the returned dict: it is for comparing, not for changing.
    """
    app = draft.apps[index]
    out: dict[str, Any] = {}
    for found in KINDS:
        reads = found.reads
        if parts is None or reads is None:
            out.update(found.from_draft(draft, app, secret_key=secret_key, env=env))
            continue
        fields = _READ[found.name](app)
        last = parts.get(found.name)
        if last is None or not _same_objects(last[0], fields):
            last = parts[found.name] = (fields, found.from_draft(draft, app, secret_key=secret_key, env=env))
        out.update(last[1])
    return out


def _reader(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields ``names`` of an app, as a tuple (``attrgetter`` gives one name's value bare)."""
    if not names:
        return lambda app: ()
    get = operator.attrgetter(*names)
    return (lambda app: (get(app),)) if len(names) == 1 else get


#: kind name -> what reads its ``Kind.reads`` fields off an app
_READ: dict[str, Callable[[Any], tuple[Any, ...]]] = {k.name: _reader(k.reads) for k in KINDS if k.reads is not None}


def _same_objects(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """The very same objects, one by one (``==`` would compare models field by field, and an equal model is not
    known to give the same part)."""
    return len(a) == len(b) and all(map(operator.is_, a, b))


def canonical_app_from_remote(remote: RemoteAppBundle, *, secret_key: bytes) -> dict[str, Any]:
    """The canonical form of what the service holds for one app, each kind building its part
    (``Kind.from_remote``).

    The SMS auth token arrives in clear and is fingerprinted with ``secret_key``; nothing downstream ever sees the
    value. A webhook password is never returned, so it is :data:`~tenantdeck.sync.types.UNKNOWN`.
    """
    out: dict[str, Any] = {}
    for found in KINDS:
        out.update(found.from_remote(remote, secret_key=secret_key))
    return out


__all__ = ["APP", "BY_NAME", "KINDS", "STEPS", "Kind", "Part", "canonical_app_from_draft", "canonical_app_from_remote",
           "empty_app", "is_secret", "kind", "kind_of_step", "label", "step_kind"]
