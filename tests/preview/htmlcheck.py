"""What a preview page holds, read by a real HTML parser (the standard library's): its elements, scripts, style
elements and the widget documents in ``srcdoc`` attributes, and the server's update events, for checks that hold
with or without a browser."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from tenantdeck.preview import page


@dataclass
class Parsed:
    tags: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    docs: list[Parsed] = field(default_factory=list)


class _Reader(HTMLParser):
    def __init__(self, out: Parsed) -> None:
        super().__init__(convert_charrefs=True)
        self.out = out
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._in = tag
            (self.out.scripts if tag == "script" else self.out.styles).append("")
        for name, value in attrs:
            if name == "srcdoc" and value is not None:
                self.out.docs.append(parse(value))

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.out.scripts[-1] += data
        elif self._in == "style":
            self.out.styles[-1] += data


def parse(text: str) -> Parsed:
    out = Parsed()
    reader = _Reader(out)
    reader.feed(text)
    reader.close()
    return out


def assert_runs_nothing(text: str) -> Parsed:
    """The page holds the one script of tenantdeck's (exactly), and neither it nor any widget document holds
    another script, an event handler attribute, a ``javascript:`` URL, a frame, a base, a form or a meta refresh;
    each widget document has its two style elements (tenantdeck's, then custom_css) and nothing after them."""
    parsed = parse(text)
    assert parsed.scripts == [page.LIVE_JS]
    assert parsed.docs, "the page has its widget document"
    _assert_inert(parsed)
    assert len(parsed.docs) == 2, "the widget's frame, and the one the next version loads into"
    for doc in parsed.docs:
        _assert_inert_document(doc)
    return parsed


def assert_update_runs_nothing(payload: dict[str, Any]) -> Parsed:
    """One server-sent update, as the page's script uses it: the widget document (loaded into a frame) holds no
    script, handler, frame or way out of its style elements; every text the script sets (with ``textContent``) is
    a string; nothing asks the page to do anything but draw."""
    assert set(payload) <= {"version", "title", "doc", "facts", "notes", "widgets", "widget"}, sorted(payload)
    doc = parse(payload["doc"])
    _assert_inert_document(doc)
    texts = [payload["title"], *payload["facts"], *payload["notes"], *payload["widgets"]]
    assert all(isinstance(t, str) for t in texts), texts
    assert isinstance(payload["widget"], int) and isinstance(payload["version"], int)
    return doc


def _assert_inert_document(doc: Parsed) -> None:
    _assert_inert(doc)
    assert doc.scripts == []
    assert not doc.docs and not any(t == "iframe" for t, _ in doc.tags)
    assert len(doc.styles) in (1, 2)


def _assert_inert(where: Parsed) -> None:
    for tag, attrs in where.tags:
        handlers = [a for a in attrs if a.startswith("on")]
        assert not handlers, (tag, handlers)
        for name, value in attrs.items():
            if name in ("href", "src", "action") and value:
                assert not value.strip().lower().startswith(("javascript:", "data:")), (tag, name, value)
        assert tag not in ("object", "embed", "base", "form", "link", "svg", "math"), tag
        if tag == "meta":
            assert (attrs.get("http-equiv") or "").lower() != "refresh"


def updates(response: Any) -> Iterator[dict[str, Any]]:
    """The ``update`` events of an ``httpx`` event stream, decoded."""
    name = None
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: ") and name == "update":
            yield json.loads(line[6:])
