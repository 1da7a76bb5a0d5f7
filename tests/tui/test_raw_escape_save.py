"""Trial J17 through the editor: a webhook name written with a raw U+202E on line 95 of a pulled draft is a
double-quoted escape after the next save (``Enter``, ``3``, ``Space``, ``F2``), whatever line the edit changed;
docs/security.md promises it, and ``git diff``/``cat`` showed ``Audit exe.png`` before."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.tui.pilot import make_app, settle
from tests.tui.safety_fixtures import env, prepare


def test_the_editors_save_escapes_a_name_written_raw_on_a_line_it_did_not_touch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    draft = prepare(tmp_path)
    lines = draft.read_text(encoding="utf-8").split("\n")
    assert lines[94] == "        name: Audit trail"
    lines[94] = "        name: Audit \u202egnp.exe"
    before = "\n".join(lines)
    draft.write_text(before, encoding="utf-8")
    app = make_app(draft)

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("enter", "3", "space")
            await settle(pilot)
            await pilot.press("f2")
            await settle(pilot)
            assert not app.editor.session.dirty

    asyncio.run(main())
    after = draft.read_text(encoding="utf-8").split("\n")
    assert after[94] == '        name: "Audit \\u202Egnp.exe"'
    changed = [i + 1 for i, (a, b) in enumerate(zip(before.split("\n"), after, strict=True)) if a != b]
    assert changed == [37, 95]  # the toggle and the escaped name; every other byte as it was
    assert "\u202e" not in draft.read_text(encoding="utf-8")
