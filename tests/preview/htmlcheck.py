"""What a preview page holds, read by a real HTML parser (the standard library's): its elements, scripts, style
elements and the widget documents in ``srcdoc`` attributes, for checks that hold with or without a browser."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

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
    for where in (parsed, *parsed.docs):
        for tag, attrs in where.tags:
            handlers = [a for a in attrs if a.startswith("on")]
            assert not handlers, (tag, handlers)
            for name, value in attrs.items():
                if name in ("href", "src", "action") and value:
                    assert not value.strip().lower().startswith(("javascript:", "data:")), (tag, name, value)
            assert tag not in ("object", "embed", "base", "form", "link", "svg", "math"), tag
            if tag == "meta":
                assert (attrs.get("http-equiv") or "").lower() != "refresh"
    assert len(parsed.docs) == 2, "the widget's frame, and the one the next version loads into"
    for doc in parsed.docs:
        assert doc.scripts == []
        assert not doc.docs and not any(t == "iframe" for t, _ in doc.tags)
        assert len(doc.styles) in (1, 2)
    return parsed
