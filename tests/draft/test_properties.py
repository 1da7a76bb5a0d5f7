"""Property tests: what the models accept survives dump + load; no text ever makes the loader raise."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenantdeck.draft import dump_draft_text, load_text
from tenantdeck.draft.sample import sample_text
from tenantdeck.models import Draft, catalog
from tenantdeck.problems import Problem
from tests.fuzzing import examples

# text as people (and copy-paste) write it, including YAML's favourite traps
TRAPS = [
    "no",
    "yes",
    "on",
    "off",
    "3",
    "1.10",
    "0777",
    "1:30",
    "2024-01-01",
    "null",
    "~",
    "-",
    "#x",
    "a: b",
    "'q'",
    '"q"',
    "@x",
    "&a",
    "*a",
    "[x]",
    "{x}",
    " lead",
    "trail ",
    "%x",
    "!x",
    "<<",
    "=",
    "0x1f",
    ".inf",
]
single_line = st.one_of(
    st.sampled_from(TRAPS),
    st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=20),
).filter(lambda s: s.strip() != "" and "\n" not in s and "\r" not in s)
ident = st.text(string.ascii_letters + string.digits, min_size=1, max_size=12)
reference = ident.filter(lambda s: not s[0].isdigit()).map(lambda s: "${" + s + "}")
colour = st.sampled_from(["#fff", "#03A9F4", "#000000", "#abcdef"])


def main_toggles() -> st.SearchStrategy[dict[str, bool]]:
    required = {t.key: st.booleans() for t in catalog.MAIN_TOGGLES if t.required and t.default is None}
    optional = {t.key: st.booleans() for t in catalog.MAIN_TOGGLES if not (t.required and t.default is None)}
    return st.fixed_dictionaries(required, optional=optional)


settings_strategy = st.fixed_dictionaries(
    {
        "name": single_line,
        "style": st.fixed_dictionaries(
            {
                "docked_layout_icon_background": colour,
                "docked_layout_icon_close": single_line,
                "docked_layout_icon_open": single_line,
            },
            optional={
                "custom_css": st.text(max_size=40),
                "primary_color": colour,
                "override_system_background_colors": st.booleans(),
            },
        ),
        "sidebar": st.fixed_dictionaries(
            {
                "users": st.booleans(),
                "groups": st.booleans(),
                "calls": st.booleans(),
                "recent_chat_listing": st.sampled_from(catalog.LISTING_VALUES["recent_chat_listing"]),
                "user_listing": st.sampled_from(catalog.LISTING_VALUES["user_listing"]),
                "sidebar_navigation_sequence": st.lists(st.sampled_from(catalog.NAVIGATION_SECTIONS), unique=True),
            }
        ),
        "main": main_toggles(),
    }
)

webhook = st.fixed_dictionaries(
    {
        "id": ident,
        "name": single_line.filter(lambda s: len(s) <= 50),
        "webhookURL": ident.map(lambda s: f"https://{s}.example.com/hook"),
    },
    optional={
        "enabled": st.booleans(),
        "retryOnFailure": st.booleans(),
        "triggers": st.lists(st.sampled_from(catalog.TRIGGER_IDS), unique=True, max_size=3),
        "username": ident,
        "password": reference,
    },
)

app = st.fixed_dictionaries(
    {"name": single_line, "region": st.sampled_from(catalog.REGIONS)},
    optional={
        "id": single_line,
        "version": st.just("3"),
        "extensions": st.fixed_dictionaries(
            {}, optional={"enabled": st.lists(st.sampled_from(catalog.EXTENSION_IDS), unique=True, max_size=3)}
        ),
        "widgets": st.lists(
            st.one_of(
                settings_strategy,
                st.fixed_dictionaries(
                    {"extends": st.just("base")},
                    optional={"name": single_line, "main": main_toggles().map(lambda m: dict(list(m.items())[:3]))},
                ),
            ),
            max_size=2,
        ),
        "sms": st.fixed_dictionaries(
            {
                "fromMobileNo": single_line,
                "messageDelay": st.one_of(st.integers(0, 10**6), st.floats(0, 1e6)),
                "twilioAccountSid": single_line,
                "twilioAuthToken": reference,
                "websiteURL": single_line,
            }
        ),
        "webhooks": st.lists(webhook, max_size=2),
    },
)

drafts = st.fixed_dictionaries(
    {
        "format": st.just(1),
        "presets": st.dictionaries(st.sampled_from(["base", "support", "sales.v2"]), settings_strategy, max_size=2),
        "apps": st.lists(app, max_size=3),
    }
).map(Draft.model_validate)


@settings(max_examples=examples(50), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(drafts)
def test_every_valid_draft_survives_dump_and_load(draft: Draft) -> None:
    text = dump_draft_text(draft)
    result = load_text(text, "roundtrip.yaml")
    yaml_level = [p for p in result.problems if p.code.startswith("yaml") or p.code in ("empty", "draft-type")]
    assert yaml_level == [], text
    assert result.draft == draft, text


BASE = sample_text("schema.json")
INSERTS = ["\t", ":", ": ", '"', "'", "&a ", "*a", "- ", "[", "{", "#", "\n", "  ", "\x00", "\ufeff", "yes", "<<: "]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = BASE
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            end = min(len(text), pos + draw(st.integers(1, 30)))
            text = text[:pos] + text[end:]
        else:
            text = text[:pos] + draw(st.sampled_from(INSERTS)) + text[pos:]
    return text


def assert_only_located_problems(text: str) -> None:
    result = load_text(text, "fuzz.yaml")  # must not raise
    for p in result.problems:
        assert isinstance(p, Problem)
        assert p.file == "fuzz.yaml"
        assert p.line >= 1 and p.column >= 1, p.render()
        assert p.message and "Traceback" not in p.message
        assert "Input should" not in p.message


@settings(max_examples=examples(150), deadline=None)
@given(mutated())
def test_mutated_drafts_only_produce_located_problems(text: str) -> None:
    assert_only_located_problems(text)


@settings(max_examples=examples(150), deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_only_produces_located_problems(text: str) -> None:
    assert_only_located_problems(text)


@given(drafts)
def test_fast_writer_writes_what_ruamel_writes(draft: Draft) -> None:
    """Fresh drafts are written by tenantdeck.draft.emit (30x faster); ruamel.yaml, which writes merges into existing
    files, is the oracle for the house style, so a pulled draft and a later comment-preserving save agree."""
    from tenantdeck.draft.emit import emit
    from tenantdeck.draft.save import _dump, _styled, _yaml, draft_data

    data = draft_data(draft)
    assert emit(data) == _dump(_yaml(), _styled(data))
