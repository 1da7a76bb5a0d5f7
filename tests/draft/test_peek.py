"""Reading only the first apps of a big draft (what the Apps screen shows while the rest is read)."""

from __future__ import annotations

import textwrap

from hypothesis import given
from hypothesis import strategies as st

from tenantdeck.draft import yamlsource
from tenantdeck.draft.sample import sample_text
from tenantdeck.draft.session import DraftSession, peek_app_rows

SAMPLE = sample_text("schema.json")


def many_apps(n: int) -> str:
    apps = "".join(f"  - name: App {i}\n    region: {('us', 'eu')[i % 2]}\n    widgets:\n      - name: W\n"
                   f"        main: {{send_gifs: {'true' if i % 2 else 'false'}}}\n" for i in range(n))
    return "format: 1\npresets:\n  p:\n    name: P\napps:" + ("\n" + apps if apps else " []\n") + "# the end\n"


@given(st.integers(min_value=0, max_value=12), st.integers(min_value=1, max_value=15))
def test_the_first_apps_are_those_of_the_whole_parse(apps: int, count: int) -> None:
    text = many_apps(apps)
    assert yamlsource.peek_apps(text, count) == yamlsource.parse(text).data["apps"][:count]


def test_the_sample_and_its_rows(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "d.yaml"
    path.write_text(SAMPLE)
    assert peek_app_rows(SAMPLE, 1) == DraftSession.open(path, validate=False).app_rows()[:1]
    assert peek_app_rows(SAMPLE, 100) == DraftSession.open(path, validate=False).app_rows()


def test_what_stops_before_the_apps_is_left_to_the_whole_parse() -> None:
    assert yamlsource.peek_apps("format: 1\npresets: {a: [\napps: []\n", 5) is None  # syntax error first
    assert yamlsource.peek_apps("format: 1\nfleet:\n  - name: A\n", 5) is None  # no apps list
    assert yamlsource.peek_apps("- a\n- b\n", 5) is None  # not a mapping
    aliased = textwrap.dedent("""\
        x: &w {name: W}
        apps:
          - name: A
            widgets: [*w]
        """)
    assert yamlsource.peek_apps(aliased, 5) is None  # aliases are refused by the whole parse; say nothing early
    # a problem after the first apps is the whole parse's to report; the first apps are still shown
    assert yamlsource.peek_apps(many_apps(3) + "apps: {oops: [\n", 2) == yamlsource.parse(many_apps(3)).data["apps"][:2]
