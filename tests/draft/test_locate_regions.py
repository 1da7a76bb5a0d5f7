"""A problem inside one app or preset is placed from that entry's own text, at exactly the line and column the
whole document's node tree gives (issue 33 item 8: placing one problem in a 25 MB draft composed the whole file).

The property: for every path of the data (every key, value and list item, and paths one key past the end), in a
draft of several apps and presets with comments, flow values and multi-line strings, the regional answer equals the
whole-document answer for ``at`` = value, key and parent, and a scalar reads the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tenantdeck.draft.load import DraftDocument, load_text
from tenantdeck.draft.locate import Positions
from tenantdeck.draft.sample import sample_text
from tenantdeck.draft.yamlsource import parse
from tenantdeck.problems import PathPart

EXTRA_APPS = """\
  # a comment between apps
  - name: "Second"   # trailing comment
    region: eu
    webhooks: [{name: a, url: "https://x.example/h", triggers: [message_sent]}]
    widgets:
      - name: w
        version: v2
        style: {primary_color: '#fff'}
        main:
          send_gifs: true

  - name: Third
    region: in
    settings:
      "core.a.b": true
    team:
      admins:
        - |
          multi
          line
"""


def _draft_text() -> str:
    text = sample_text("tenantdeck.schema.json")
    assert "\napps:\n" in text
    return text.rstrip("\n") + "\n" + EXTRA_APPS


def _paths(value: Any, prefix: tuple[PathPart, ...] = ()) -> Iterator[tuple[PathPart, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
        yield (*prefix, "not_a_key")
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*prefix, i))
        yield (*prefix, len(value))


def test_the_draft_is_cut_into_regions_at_all() -> None:
    text = _draft_text()
    doc = DraftDocument("d.yaml", text, parse(text).data)
    assert doc._region(("apps", 0, "name")) is not None
    assert doc._region(("apps", len(doc.data["apps"]) - 1, "team")) is not None


@pytest.mark.parametrize("at", ["value", "key", "parent"])
def test_every_path_is_placed_where_the_whole_document_places_it(at: str) -> None:
    text = _draft_text()
    data = parse(text).data
    whole = Positions(text)
    doc = DraftDocument("d.yaml", text, data)
    for path in _paths(data):
        if at == "parent":
            expected = whole.position(path[:-1], at_key=True) if path else (1, 1)
        else:
            expected = whole.position(path, at_key=at == "key")
        assert doc.locate(path, at=at) == expected, path
        node = whole.scalar(path)
        assert doc.scalar(path) == (None if node is None else (node.value, node.style or "", node.tag)), path


def test_a_region_that_does_not_read_back_as_the_data_is_not_trusted() -> None:
    text = _draft_text()
    data = parse(text).data
    data["apps"][0] = {"name": "something else"}  # the text no longer says what the data says
    doc = DraftDocument("d.yaml", text, data)
    assert doc._region(("apps", 0, "name")) is None
    assert doc.locate(("apps", 0, "name")) == Positions(text).position(("apps", 0, "name"))


def test_problems_in_many_apps_are_placed_as_before() -> None:
    text = _draft_text().replace("region: eu", "region: mars").replace("region: in", "region: venus")
    result = load_text(text, "d.yaml")
    whole = Positions(text)
    regions = [p for p in result.problems if p.path[:1] == ("apps",) and "region" in p.path]
    assert len(regions) >= 2
    for p in regions:
        assert (p.line, p.column) == whole.position(p.path)
