"""The cache of parsed big drafts: the same text opens without parsing and gives the same data; any other text,
a changed cache entry or a draft with edits or YAML problems never gets cached data."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tenantdeck.draft import parsecache, yamlsource
from tenantdeck.draft.session import DraftSession


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(parsecache, "MIN_CHARS", 1000)  # the fixture drafts are small


def write_draft(tmp_path: Path, apps: int = 40, name: str = "d.yaml") -> Path:
    data = {"format": 1, "presets": {}, "apps": [
        {"id": f"app{i}", "name": f"Tenant {i}", "region": "eu", "version": "3", "webhooks": []} for i in range(apps)]}
    path = tmp_path / name
    path.write_text("# a comment\n" + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "parse-cache").glob("*.marshal"))


def test_second_open_of_the_same_text_reads_the_cache_and_gets_the_same_data(tmp_path: Path) -> None:
    path = write_draft(tmp_path)
    first = DraftSession.open(path, validate=False)
    assert not first.parsed_from_cache and first.remember_parse() and len(entries(tmp_path)) == 1
    second = DraftSession.open(path)
    assert second.parsed_from_cache
    assert second.data == yamlsource.parse(path.read_text(encoding="utf-8")).data == first.data
    assert second.problems == first.problems == []
    # and it edits and saves as a parsed one does: one line changes, the comment stays
    second.set("apps[3].region", "us")
    second.save()
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# a comment\n") and text.count("region: us") == 1


def test_other_text_or_a_broken_entry_parses_again(tmp_path: Path) -> None:
    path = write_draft(tmp_path)
    assert DraftSession.open(path, validate=False).remember_parse()
    path.write_text(path.read_text(encoding="utf-8").replace("Tenant 7\n", "Tenant Seven\n"), encoding="utf-8")
    changed = DraftSession.open(path, validate=False)
    assert not changed.parsed_from_cache and changed.get("apps[7].name") == "Tenant Seven"
    assert changed.remember_parse() and len(entries(tmp_path)) == 2
    for entry in entries(tmp_path):
        entry.write_bytes(entry.read_bytes()[:50])  # truncated
    again = DraftSession.open(path, validate=False)
    assert not again.parsed_from_cache and again.get("apps[7].name") == "Tenant Seven"
    assert len(entries(tmp_path)) == 1  # the entry of this text was unreadable and removed; the other stays


def test_nothing_is_cached_with_unsaved_edits_problems_or_a_small_draft(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_draft(tmp_path)
    edited = DraftSession.open(path, validate=False)
    edited.set("apps[0].region", "us")
    assert not edited.remember_parse()
    dup = tmp_path / "dup.yaml"
    dup.write_text(path.read_text(encoding="utf-8").replace("  region: eu\n", "  region: eu\n  region: us\n", 1),
                   encoding="utf-8")
    assert not DraftSession.open(dup, validate=False).remember_parse()  # a duplicate key: parse says so each time
    monkeypatch.setattr(parsecache, "MIN_CHARS", 10**9)
    assert not DraftSession.open(path, validate=False).remember_parse()
    assert entries(tmp_path) == []
