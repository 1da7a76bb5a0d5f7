"""Advance the base where the draft and the live service already agree.

The base is "the value both sides held when we last looked". When the two sides reach the same value by different
roads (someone settles a conflict by copying the live value into the draft, or the same change is made on both
sides), no operation is planned for that field, so nothing would move its base: ``diff --offline`` would go on
showing a change that is not there, and a later remote change of that field would look like a *local* change, so a
push would overwrite it. Pull and push therefore record, field by field, every value the two sides now share.

An app with no base at all whose draft and live agree in full (a first promotion into an account that has the
app, settled by ``--take-theirs``; a fresh clone already in sync) gets the live state as its base, as a pull would
write it: without it, the next command met "no base" again and a rotated key could not be told from another
account.

Only genuinely equal values count: a side that cannot tell (a write-only field the service never returns, a
``${VAR}`` whose variable is unset) never advances the base.

Not to be confused with *settling* a conflict (:mod:`tenantdeck.sync.settle`), where the user picks a side: here
nobody picks anything, the base only catches up with an agreement that already exists.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from tenantdeck.sync.compare import Comparison, _leaves, raw_resources
from tenantdeck.sync.kinds import BY_NAME
from tenantdeck.sync.types import ABSENT, UNKNOWN, cannot_tell


def advanced_bases(comparison: Comparison) -> dict[str, dict[str, Any]]:
    """app id -> its new base, for every app whose base lags behind a value draft and live share."""
    out: dict[str, dict[str, Any]] = {}
    if comparison.offline:
        return out
    for app in comparison.apps:
        if not app.app_id or app.live is None or app.draft is None:
            continue
        if app.base is None:
            if app.status == "in_sync":
                out[app.app_id] = copy.deepcopy(app.live)
            continue
        new = advance_app(app.draft, app.base, app.live)
        if new is not None:
            out[app.app_id] = new
    return out


def advance_app(draft: Mapping[str, Any], base: Mapping[str, Any],
               live: Mapping[str, Any]) -> dict[str, Any] | None:
    """The base of one app with every leaf that draft and live share recorded, or None when nothing moves."""
    d_res, b_res, l_res = raw_resources(draft), raw_resources(base), raw_resources(live)
    new: dict[str, Any] | None = None
    for key in d_res.keys() & l_res.keys():
        kind, rid = key
        if d_res[key] == b_res.get(key) or l_res[key] is UNKNOWN or d_res[key] is UNKNOWN:
            continue
        d, lv = _leaves(kind, d_res[key]), _leaves(kind, l_res[key])
        b = _leaves(kind, b_res.get(key))
        assert d is not None and lv is not None
        if b is None:
            if d != lv or any(cannot_tell(v) for v in lv.values()):
                continue  # no base yet and the sides differ: the push's own operation records it
            leaves = dict(lv)
        else:
            leaves = dict(b)
            paths = list(d) if BY_NAME[kind].partial else list(dict.fromkeys([*d, *lv]))
            for path in paths:
                dv, lvv = d.get(path, ABSENT), lv.get(path, ABSENT)
                if dv != lvv or cannot_tell(dv) or cannot_tell(lvv):
                    continue
                if dv is ABSENT:
                    leaves.pop(path, None)
                else:
                    leaves[path] = dv
            if leaves == b:
                continue
        if new is None:
            new = copy.deepcopy(dict(base))
        BY_NAME[kind].put(new, rid, leaves)
    return new

