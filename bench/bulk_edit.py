"""Benchmark: a bulk edit of one toggle on 5,000 apps in the open editor, with the change states refreshed.

What the TUI does when the bulk-edit screen applies "Allow GIFs = off" to every app of the sparse fleet draft of
``bench/validate.py`` (every widget extends one preset and overrides its name and ``send_gifs``): build the edits
(``draft.bulk.set_field``), apply them as one undo step (``DraftSession.set_many``: one-pass splice + incremental
re-validation of the edited apps), and recompute every app's change state against the base snapshot
(``Editor.compute_app_states``: the offline plan the Apps list shows). Then the undo of it, with its states.

A base snapshot of the unedited draft is written first, so every edited app turns from "in sync" to "modified"
(and back after the undo): the states are checked, not just timed, and after each undo the draft's data is
checked to be the unedited data again, app by app.

A second case edits the new kinds: one word added to the profanity filter's list of every app of the full draft
(``draft.bulk.set_field`` with the extension-settings field of kind ADD_ITEM, 1,000 apps by default:
``--add-item-apps``), one undo step, with the same states and checks.

The CPU time of the process is printed beside the wall time: on a shared machine it says what the edit costs
when other jobs take the cores. Baselines measured in the same run, since the machine is noisy: (a) one
single-toggle ``set`` in the same session, (b) a bare ``yaml.load(CSafeLoader)`` of the draft file. Also the old
path for comparison: the same edits through a plain ``transaction()`` of ``set``s (the text copied once per
edit), on 1,000 apps only (it is quadratic).

    .venv/bin/python bench/bulk_edit.py [--apps 5000] [--rounds R] [--full] [--add-item-apps 1000]
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from validate import build_draft_text, build_sparse_draft_text  # noqa: E402

from tenantdeck.draft import bulk  # noqa: E402
from tenantdeck.tui.editor import Editor  # noqa: E402

TARGET = 1.0


def median(rounds: int, step: Callable[[int], None]) -> float:
    times = []
    for i in range(rounds):
        start = time.perf_counter()
        step(i)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def write_base(editor: Editor) -> None:
    """A base snapshot equal to the draft: every app "in sync" before the edit."""
    from tenantdeck.draft.load import load_text
    from tenantdeck.sync.kinds import canonical_app_from_draft
    from tenantdeck.sync.workspace.state import Workspace

    draft = load_text(editor.session.text).draft
    assert draft is not None
    workspace = Workspace(editor.path)
    key = workspace.secret_key()
    apps = {app.id: canonical_app_from_draft(draft, i, secret_key=key, env=os.environ)
            for i, app in enumerate(draft.apps) if app.id}
    workspace.write_base_apps(apps)


def run(apps: int, rounds: int, tmp: Path, full: bool, case: str = "toggle") -> dict[str, Any]:
    """One shape's figures. ``case``: ``toggle`` (Allow GIFs = on) or ``add-item`` (one profanity word added)."""
    path = tmp / f"fleet-{apps}{'-full' if full else ''}-{case}.yaml"
    path.write_text((build_draft_text if full else build_sparse_draft_text)(apps), encoding="utf-8")
    editor = Editor(path)
    editor.session.validate_all()
    write_base(editor)
    states = editor.compute_app_states()
    assert set(states.values()) == {"in sync"}, set(states.values())
    if case == "toggle":
        field, value = bulk.find_field("send_gifs"), True
        single_path, single_values = f"apps[{apps // 2}].widgets[0].main.send_gifs", [True, False]
    else:
        field, value = bulk.find_field("profanity-filter.badwords"), "blargh"
        single_path = f"apps[{apps // 2}].extension_settings.profanity-filter.badwords"
        words = editor.session.get(single_path)
        single_values = [[*words, value], words]
    assert field is not None
    unedited = copy.deepcopy(editor.session.data["apps"])

    expected: list[int] = []

    def bulk_edit() -> None:
        edit = bulk.set_field(editor.session.data, bulk.select_apps(editor.session.data), field, value)
        assert editor.set_many(edit.edits).ok
        editor.compute_app_states()
        expected[:] = [len(edit.changed)]

    def undo() -> None:
        editor.undo()
        editor.compute_app_states()

    # a round: the edit on every app (from the unedited draft each round: undone below), then undone; both checked
    bulk_times: list[float] = []
    bulk_cpu: list[float] = []
    undo_times: list[float] = []
    changed = 0
    for _ in range(rounds):
        start, cpu = time.perf_counter(), time.process_time()
        bulk_edit()
        bulk_times.append(time.perf_counter() - start)
        bulk_cpu.append(time.process_time() - cpu)
        changed = sum(s == "modified" for s in editor.app_states.values())
        assert changed == expected[0], (changed, expected)
        start = time.perf_counter()
        undo()
        undo_times.append(time.perf_counter() - start)
        assert set(editor.app_states.values()) == {"in sync"}
        apps_now = editor.session.data["apps"]
        assert len(apps_now) == len(unedited) and all(a == b for a, b in zip(apps_now, unedited, strict=True)), \
            "the undo did not restore every app"
    results = {"bulk": statistics.median(bulk_times), "undo": statistics.median(undo_times), "changed": changed,
               "all": bulk_times, "cpu": statistics.median(bulk_cpu)}

    def single(i: int) -> None:
        editor.set(single_path, single_values[i % 2])

    results["single"] = median(max(rounds, 11), single)

    def parse(_: int) -> None:
        with open(path, encoding="utf-8") as fh:
            yaml.load(fh, Loader=yaml.CSafeLoader)

    results["parse"] = median(3, parse)
    results["size"] = path.stat().st_size
    return results


def report(title: str, r: dict[str, Any], what: str) -> bool:
    verdict = "OK" if r["bulk"] <= TARGET else "OVER"
    print(f"\n{title}, {r['size'] / 1e6:.1f} MB; {int(r['changed'])} apps change per bulk edit ({what})")
    print(f"  bulk edit + states   {r['bulk']:.3f} s   target <= {TARGET:.1f} s: {verdict}   "
          f"(all: {', '.join(f'{t:.2f}' for t in r['all'])}; CPU time {r['cpu']:.3f} s)")
    print(f"  undo + states        {r['undo']:.3f} s (every app's data checked to be as before)")
    print(f"  baselines: one single set {r['single'] * 1000:.2f} ms "
          f"(bulk = {r['bulk'] / r['single']:.0f}x, for {int(r['changed'])} edits); "
          f"bare yaml.load {r['parse']:.2f} s (bulk = {r['bulk'] / r['parse']:.2f}x)")
    return bool(r["bulk"] <= TARGET)


def old_path(apps: int, tmp: Path) -> float:
    """The same toggle on every app through a transaction of single sets (before the one-pass splice)."""
    from tenantdeck.draft.session import DraftSession

    path = tmp / f"old-{apps}.yaml"
    path.write_text(build_sparse_draft_text(apps), encoding="utf-8")
    session = DraftSession.open(path)
    start = time.perf_counter()
    with session.transaction():
        for i in range(apps):
            session.set(("apps", i, "widgets", 0, "main", "send_gifs"), True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--full", action="store_true", help="also the full draft (every widget written out)")
    parser.add_argument("--add-item-apps", type=int, default=1000,
                        help="apps of the full draft for the add-a-profanity-word case (0: skip it)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"libyaml {yaml.__with_libyaml__}, {dt.date.today()}, load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; median of {args.rounds} rounds")
    ok = True
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        old = old_path(1000, tmp)
        print(f"old path (transaction of 1,000 single sets, sparse draft): {old:.2f} s")
        for full in (False, True) if args.full else (False,):
            r = run(args.apps, args.rounds, tmp, full)
            met = report(f"{args.apps} apps, {'full' if full else 'sparse fleet'} draft", r, "Allow GIFs = on")
            ok &= full or met
        if args.add_item_apps:
            r = run(args.add_item_apps, args.rounds, tmp, True, "add-item")
            ok &= report(f"{args.add_item_apps} apps, full draft", r, "one word added to the profanity filter")
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
