"""A sandbox account in which every string the service holds is hostile (issue 32, item 5).

Not a list of fields written by hand (that is how the Webhooks tab's detail line was missed): :func:`poison` walks
every table of the sandbox's database, every text column and every string inside the JSON documents they hold,
and replaces each with one of :data:`PAYLOADS` in turn. What stays is what identifies a row (its primary key,
``*_id`` columns, and a document's copy of them), so the account still hangs together, and a value the draft's
models (walked from :class:`~tenantdeck.models.Draft` down) accept no payload in: a region is one of three words,
a version "3", a colour ``#rrggbb``; anything else the service holds is free text an admin typed, and hostile.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import typing
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

#: what a terminal acts on: OSC 52 (writes the clipboard), clear screen, BEL, NUL, the bidi override and isolates
OSC52 = "\x1b]52;c;U1RURVNU\x1b\\"
PAYLOADS = [
    f"osc{OSC52}52",
    "clear\x1b[2Jscreen",
    "bell\x07nul\x00",
    "gnp\u202eexe.png",
    "iso\u2066l\u2067a\u2068t\u2069e",
    "long" + "x" * 10_240 + "\u202e\x1b[2J",  # 10 KB, ending in something hostile
    f"all{OSC52}\x1b[2J\x07\x00\u202e\u2066\u2067\u2068\u2069",
]
#: any of them, raw: what must never reach a terminal or a file tenantdeck writes
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def assert_clean(text: str, where: str) -> None:
    found = RAW.search(text)
    if found is not None:
        around = text[max(found.start() - 80, 0):found.start() + 40]
        raise AssertionError(f"{where}: raw {found.group()!r} at {found.start()}: {around!r}")


def _key_columns(conn: sqlite3.Connection, table: str) -> tuple[list[str], set[str]]:
    """The table's columns, and those that identify a row (primary key, ``id``/``*_id``, unique)."""
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    columns = [row[1] for row in info]
    keys = {row[1] for row in info if row[5] or row[1] == "id" or row[1].endswith("_id")}
    for index in conn.execute(f"PRAGMA index_list({table})").fetchall():
        if index[2]:  # unique
            keys |= {row[2] for row in conn.execute(f"PRAGMA index_info({index[1]})").fetchall()}
    return columns, keys


@functools.cache
def _fields() -> dict[str, list[Any]]:
    """Every field of the draft's models, by its name and alias: a TypeAdapter of its annotation for each."""
    from pydantic import BaseModel, TypeAdapter

    from tenantdeck.models import Draft

    out: dict[str, list[Any]] = {}
    seen: set[type] = set()

    def models_in(annotation: Any) -> Iterator[type[BaseModel]]:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield annotation
        for arg in typing.get_args(annotation):
            yield from models_in(arg)

    def visit(model: type[BaseModel]) -> None:
        if model in seen:
            return
        seen.add(model)
        for name, field in model.model_fields.items():
            annotation = typing.Annotated[field.annotation, *field.metadata] if field.metadata else field.annotation
            adapter = TypeAdapter(annotation)
            for key in {name, field.alias or name}:
                out.setdefault(key, []).append(adapter)
            for inner in models_in(field.annotation):
                visit(inner)

    visit(Draft)
    return out


def _accepts(key: str | None, value: str) -> bool:
    """Whether every draft field named ``key`` takes ``value`` (a key no model has: the service's own text)."""
    for adapter in _fields().get(key or "", []):
        try:
            adapter.validate_python(value, strict=True)
        except Exception:  # pydantic's ValidationError, or a type that takes no string at all
            return False
    return True


def _walk(value: Any, keep: set[str], payload: Iterator[str], key: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: _walk(v, keep, payload, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, keep, payload, key) for v in value]
    if isinstance(value, str) and value not in keep:
        for _ in PAYLOADS:  # the next payload the field takes (a name may be too short for 10 KB)
            text = next(payload)
            for candidate in (text, f"https://hooks.example/{text}"):  # a URL field takes it after a scheme
                if _accepts(key, candidate):
                    return candidate
    return value


def poison(db: Path, start: int = 0) -> int:
    """Every string of the account at ``db`` replaced by a payload, in turn from payload ``start``; returns how
    many were replaced. Poisoning again with another ``start`` changes every value (the service moved on)."""
    turn = count(start)
    replaced = 0

    def payloads() -> Iterator[str]:
        nonlocal replaced
        while True:
            replaced += 1
            yield PAYLOADS[next(turn) % len(PAYLOADS)]

    payload = payloads()
    conn = sqlite3.connect(db)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            if table.startswith("sqlite_"):
                continue
            columns, keys = _key_columns(conn, table)
            for row in conn.execute(f"SELECT * FROM {table}").fetchall():
                keep = {str(v) for c, v in zip(columns, row, strict=True) if c in keys and v is not None}
                new = [_poisoned(c, v, keys, keep, payload) for c, v in zip(columns, row, strict=True)]
                if new != list(row):
                    sets = ", ".join(f"{c} = ?" for c in columns)
                    where = " AND ".join(f"{c} IS ?" for c in columns)
                    conn.execute(f"UPDATE {table} SET {sets} WHERE {where}", (*new, *row))
        conn.commit()
    finally:
        conn.close()
    return replaced


def _poisoned(column: str, value: Any, keys: set[str], keep: set[str], payload: Iterator[str]) -> Any:
    if not isinstance(value, str) or column in keys:
        return value
    try:
        doc = json.loads(value)
    except ValueError:
        return next(payload)
    if isinstance(doc, dict | list):
        return json.dumps(_walk(doc, keep, payload), separators=(",", ":"))
    return next(payload)
