"""A resource kind and an extension are checklists the tests enforce: every table a kind or an extension must be
registered in is walked here, and a test fails naming the table and the missing (or stale) entry.

The source of truth for kinds is the registry :data:`tenantdeck.sync.kinds.KINDS` (each kind's ``name`` and
``section``, the canonical app's key it holds); for extensions, :data:`tenantdeck.models.extension_catalog.EXTENSIONS`.
The tables below were found by reading how the last kind (``team``) was added: each one a new kind had to be put
in by hand. Where a table holds only some kinds on purpose, the ones it leaves out are listed with the reason, so
adding a kind means deciding for each table (docs/architecture.md, "Adding a resource kind", is this list).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, fields

import pytest

from tenantdeck.sync.kinds import KINDS, STEPS

#: the canonical app's sections, one per kind that has one (the app kind has none; triggers share webhooks')
SECTIONS = frozenset(kind.section for kind in KINDS if kind.section)
#: kind name -> its section
KIND_SECTION = {kind.name: kind.section for kind in KINDS if kind.section}


@dataclass(frozen=True)
class Table:
    """One table a kind (or an extension) must be registered in: where it is, what it holds, what it must hold, and
    the entries it leaves out on purpose (key -> why)."""

    where: str
    holds: Callable[[], Collection[str]]
    must_hold: Callable[[], Collection[str]]
    left_out: Mapping[str, str]
    exact: bool = True  #: False: the table may hold more than the kinds (other keys of the same map)


def _app_fields() -> set[str]:
    from tenantdeck.models.app import App

    return set(App.model_fields)


def _schema_app_properties() -> set[str]:
    from tenantdeck.draft.schema import SCHEMA_FILE

    return set(json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))["$defs"]["App"]["properties"])


def _policy_sections() -> tuple[str, ...]:
    from tenantdeck.policies.account import SECTIONS as POLICY_SECTIONS

    return POLICY_SECTIONS


def _optional_sections() -> tuple[str, ...]:
    from tenantdeck.policies.evaluator import OPTIONAL_SECTIONS

    return OPTIONAL_SECTIONS


def _rule_sections() -> set[str]:
    from tenantdeck.rules import APP_CHECKS

    return {name for names, _ in APP_CHECKS for name in names}


def _fetched_sections() -> set[str]:
    """The sections :func:`tenantdeck.sync.remote.fetch.read_sections` reads when asked (``"team" in sections``)."""
    from tenantdeck.sync.remote.fetch import read_sections

    source = inspect.getsource(read_sections)
    return {section for section in SECTIONS if f'"{section}" in sections' in source}


def _pull_counts() -> set[str]:
    from tenantdeck.sync.remote.pull import PullResult

    return {f.name for f in fields(PullResult)}


def _section_tabs() -> set[str]:
    from tenantdeck.draft.app_tabs import SECTION_TABS

    return set(SECTION_TABS)


def _kind_sections() -> set[str]:
    """The kinds whose sections ``draft.app_tabs.KIND_SECTIONS`` names right (a wrong section counts as missing)."""
    from tenantdeck.draft.app_tabs import KIND_SECTIONS

    return {name for name, section in KIND_SECTIONS.items() if KIND_SECTION.get(name) == section}


def _app_screen_tabs() -> set[str]:
    from tenantdeck.tui.screens.app_screen import TABS

    return {tab for tab, *_ in TABS}


def _tabs_of_sections() -> set[str]:
    from tenantdeck.draft.app_tabs import SECTION_TABS, WIDGET_TABS

    return {*SECTION_TABS.values(), *WIDGET_TABS.values()}


def _calls() -> set[str]:
    from tenantdeck.sync.remote.ops import CALLS

    return set(CALLS)


KIND_TABLES: tuple[Table, ...] = (
    Table("models.app.App (the draft's block of each kind)", _app_fields, lambda: SECTIONS, {}, exact=False),
    Table("src/tenantdeck/schema/draft.schema.json, App (run `make schema`)", _schema_app_properties,
          lambda: SECTIONS, {}, exact=False),
    Table("policies.account.SECTIONS (what the rules can read of an app)", _policy_sections, lambda: SECTIONS, {}),
    Table("policies.evaluator.OPTIONAL_SECTIONS (a section a draft app may leave out)", _optional_sections,
          lambda: SECTIONS, {"widgets": "a list: none is the empty list, never left out",
                             "webhooks": "a list: none is the empty list, never left out"}),
    Table("rules.APP_CHECKS (the draft's cross-object checks of each section)", _rule_sections, lambda: SECTIONS,
          {"push_certificates": "checked by models.certfiles.certificate_problems (the files, not the data)"},
          exact=False),
    Table("sync.remote.fetch.read_sections (what the push's gate and audit read of every app)", _fetched_sections,
          lambda: SECTIONS, {"extensions": "always read (want_ext): the settings to read depend on it",
                             "extension_settings": "read per extension (want_settings)"}),
    Table("sync.remote.pull.PullResult (the pull's one-line summary counts)", _pull_counts, lambda: SECTIONS,
          {"extensions": "switches, not things a person counts", "sms": "one block per app",
           "settings": "one block per app", "push_certificates": "one block per app"}, exact=False),
    Table("draft.app_tabs.SECTION_TABS (the tab a problem, a violation or a review row jumps to)", _section_tabs,
          lambda: SECTIONS, {"push_certificates": "no tab shows certificates yet: the App screen opens on its first"}),
    Table("draft.app_tabs.KIND_SECTIONS (a plan step's kind -> its section, for the review's jump)", _kind_sections,
          lambda: KIND_SECTION, {"certificate": "no tab shows certificates yet"}),
    Table("tui.screens.app_screen.TABS (the App screen's tab list)", _app_screen_tabs, _tabs_of_sections, {},
          exact=False),
    Table("sync.remote.ops.CALLS (each plan step's API call)", _calls, lambda: STEPS, {}),
)


def check(table: Table) -> list[str]:
    """What is wrong with ``table``: each entry it must hold and does not (unless left out on purpose), and, when
    it is exact, each entry it holds that nothing asks for."""
    holds, must = set(table.holds()), set(table.must_hold())
    wrong = [f"{table.where} lacks {name!r}" for name in sorted(must - holds - set(table.left_out))]
    wrong += [f"{table.where}: {name!r} is listed as left out, but it is there now" for name in
              sorted(set(table.left_out) & holds)]
    if table.exact:
        wrong += [f"{table.where} holds {name!r}, which no kind has" for name in sorted(holds - must)]
    return wrong


@pytest.mark.parametrize("table", KIND_TABLES, ids=lambda t: t.where.split(" ")[0])
def test_every_kind_is_in_every_table(table: Table) -> None:
    assert check(table) == []


def test_a_missing_entry_is_named() -> None:
    """Take ``team`` out of one table: the check names the table and the kind."""
    from tenantdeck.policies import account

    saved = account.SECTIONS
    try:
        account.SECTIONS = tuple(s for s in saved if s != "team")
        table = next(t for t in KIND_TABLES if t.where.startswith("policies.account.SECTIONS"))
        assert check(table) == ["policies.account.SECTIONS (what the rules can read of an app) lacks 'team'"]
    finally:
        account.SECTIONS = saved


# -- extensions ---------------------------------------------------------------------------------------------------


def _catalog_ids() -> set[str]:
    from tenantdeck.models.extension_catalog import EXTENSIONS

    return {spec.id for spec in EXTENSIONS}


def _extension_ids() -> set[str]:
    from tenantdeck.models.catalog import EXTENSION_IDS

    return set(EXTENSION_IDS)


def _schema_extension_settings() -> set[str]:
    from tenantdeck.draft.schema import SCHEMA_FILE

    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return set(schema["$defs"]["ExtensionSettings"]["properties"])


def _toggle_extensions() -> set[str]:
    from tenantdeck.models.catalog import TOGGLE_EXTENSIONS

    return set(TOGGLE_EXTENSIONS.values())


EXTENSION_TABLES: tuple[Table, ...] = (
    Table("models.catalog.EXTENSION_IDS (the ids a draft, the API and the sandbox know)", _extension_ids,
          _catalog_ids, {}, exact=False),
    Table("models.catalog.EXTENSION_IDS, for a widget toggle's extension (TOGGLE_EXTENSIONS)", _extension_ids,
          _toggle_extensions, {}, exact=False),
    Table("src/tenantdeck/schema/draft.schema.json, ExtensionSettings (run `make schema`)",
          _schema_extension_settings, _catalog_ids, {}),
)


@pytest.mark.parametrize("table", EXTENSION_TABLES, ids=lambda t: t.where.split(" ")[0])
def test_every_extension_is_in_every_table(table: Table) -> None:
    assert check(table) == []


def test_one_catalog_entry_gives_an_extension_its_models() -> None:
    """The draft's and the request's models, made from the catalog entry alone, for every extension a draft holds;
    an extension with no documented settings has none (the draft refuses a settings block for it)."""
    from tenantdeck.models.extension_catalog import DRAFT_EXTENSIONS, EXTENSIONS
    from tenantdeck.models.extension_settings import draft_model, request_model

    for ext in DRAFT_EXTENSIONS:
        assert draft_model(ext).model_json_schema() and request_model(ext).model_json_schema(), ext
    assert set(DRAFT_EXTENSIONS) <= {spec.id for spec in EXTENSIONS if spec.documented}


def test_a_missing_extension_is_named() -> None:
    table = EXTENSION_TABLES[0]
    broken = Table(table.where, lambda: _extension_ids() - {"stickers"}, table.must_hold, {}, exact=False)
    assert check(broken) == [f"{table.where} lacks 'stickers'"]
