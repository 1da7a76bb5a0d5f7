"""An extension's name is written once, in the extension catalog's list (issue 35): the catalog's ids and names,
each settings spec's name, the editor's rows and the sandbox's extension list read it from there."""

from __future__ import annotations

from tenantdeck.draft.extension_view import extension_rows
from tenantdeck.models import catalog
from tenantdeck.models.extension_catalog import EXTENSION_INFO, EXTENSION_LIST, EXTENSIONS, extension_name
from tenantdeck.sandbox.extension_info import extension_item


def test_one_entry_per_extension_and_every_spec_is_one_of_them() -> None:
    ids = [info.id for info in EXTENSION_LIST]
    assert len(ids) == len(set(ids))
    assert tuple(ids) == catalog.EXTENSION_IDS
    assert {info.id: info.name for info in EXTENSION_LIST} == catalog.EXTENSION_NAMES
    unknown = [spec.id for spec in EXTENSIONS if spec.id not in EXTENSION_INFO]
    assert unknown == [], f"add these extensions to extension_catalog.EXTENSION_LIST: {unknown}"


def test_every_reader_shows_the_catalogs_name() -> None:
    for spec in EXTENSIONS:
        assert spec.name == EXTENSION_INFO[spec.id].name
    for info in EXTENSION_LIST:
        item = extension_item(info.id, True)
        assert (item["name"], item["categories"]["data"]) == (info.name, [info.category])
    rows = {row.id: row.name for row in extension_rows({"apps": [{"name": "a"}]}, 0)}
    assert rows == {info.id: info.name for info in EXTENSION_LIST}


def test_an_unknown_id_is_shown_as_itself() -> None:
    assert extension_name("no-such-extension") == "no-such-extension"
