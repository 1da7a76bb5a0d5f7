"""Property: whatever a session's edits are, its spliced text and a ruamel.yaml merge of the same data into the
original text load to the same data (the session's), and undoing every edit gives back the original bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenantdeck.draft import yamlsource
from tenantdeck.draft.sample import sample_text
from tenantdeck.draft.save import merge_data
from tenantdeck.draft.session import DraftSession
from tenantdeck.draft.session.splicing import same as _same
from tenantdeck.models import catalog
from tests.draft.test_properties import TRAPS
from tests.fuzzing import examples

SAMPLE = sample_text("schema.json")
OTHER_STYLE = """\
format: 1
presets: {}
apps:
- name: Alpha   # dashes at their key's column
  region: us
  webhooks:
  - id: a1
    name: First
    webhookURL: https://example.com/a1
    triggers: [message_sent]

- name: 'Beta'
  region: "eu"
  extensions:
    enabled: [polls]
    disabled: []
"""

words = st.one_of(st.sampled_from(TRAPS), st.text(min_size=1, max_size=12).filter(lambda s: s.strip() == s != ""))
toggles = st.sampled_from([t.key for t in catalog.MAIN_TOGGLES])


def a_webhook(draw: Any, n: int) -> dict[str, Any]:
    return {
        "id": f"h{n}",
        "name": draw(words),
        "webhookURL": f"https://example.com/{n}",
        "enabled": draw(st.booleans()),
        "triggers": draw(st.lists(st.sampled_from(catalog.TRIGGER_IDS[:6]), max_size=3, unique=True)),
    }


def one_edit(draw: Any, session: DraftSession, n: int) -> None:
    apps = session.data.get("apps") or []
    choice = draw(st.integers(0, 8))
    if not apps or choice == 0:
        session.insert(f"apps[{draw(st.integers(0, len(apps)))}]", {"name": draw(words), "region": "us"})
        return
    i = draw(st.integers(0, len(apps) - 1))
    app = apps[i]
    hooks = app.get("webhooks") or []
    widgets = app.get("widgets") or []
    if choice == 1:
        session.set(f"apps[{i}].name", draw(words))
    elif choice == 2:
        session.set(f"apps[{i}].region", draw(st.sampled_from(["us", "eu", "in"])))
    elif choice == 3:
        hook = a_webhook(draw, n)
        session.insert(f"apps[{i}].webhooks", hook if isinstance(app.get("webhooks"), list) else [hook])
    elif choice == 4 and hooks:
        session.delete(f"apps[{i}].webhooks[{draw(st.integers(0, len(hooks) - 1))}]")
    elif choice == 5 and hooks:
        j = draw(st.integers(0, len(hooks) - 1))
        triggers = draw(st.lists(st.sampled_from(catalog.TRIGGER_IDS), max_size=14))
        session.set(f"apps[{i}].webhooks[{j}].triggers", triggers)
    elif choice == 6 and widgets:
        session.set(f"apps[{i}].widgets[0].main.{draw(toggles)}", draw(st.booleans()))
    elif choice == 7 and widgets and isinstance(widgets[0].get("main"), dict) and widgets[0]["main"]:
        session.delete(f"apps[{i}].widgets[0].main.{draw(st.sampled_from(sorted(widgets[0]['main'])))}")
    elif choice == 8 and len(apps) > 1:
        session.delete(f"apps[{i}]")
    else:
        enabled = draw(st.lists(st.sampled_from(["polls", "e2ee"]), unique=True))
        session.set(f"apps[{i}].extensions", {"enabled": enabled, "disabled": []})


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), original=st.sampled_from([SAMPLE, OTHER_STYLE]))
def test_splice_and_ruamel_load_to_the_same_data(tmp_path: Path, data: st.DataObject, original: str) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(original, encoding="utf-8")
    session = DraftSession.open(path, validate=False)
    edits = data.draw(st.integers(1, 6))
    for n in range(edits):
        one_edit(data.draw, session, n)
    spliced = yamlsource.parse(session.text)
    merged = yamlsource.parse(merge_data(original, session.data))
    assert not spliced.fatal and not merged.fatal
    assert _same(spliced.data, session.data)
    assert spliced.data == merged.data
    while session.undo() is not None:
        pass
    assert session.text == original
