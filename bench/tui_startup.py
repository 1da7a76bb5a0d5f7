"""Benchmark: process start to the first painted Apps screen, in a 100x30 pseudo-terminal, against a bare Textual
hello-world measured in the same run; and the editor's own peak memory once the draft is validated.

Each run starts a fresh process on the slave side of a pty (``TERM=xterm-256color``), reads the master side and
stops the clock at the first output that completes the marker: ``Hello`` for the bare app; for tenantdeck the Apps
table's first row (``Tenant 00000``) and the filter line's placeholder (``Filter apps``), i.e. the first frame
showing the table's content. Runs alternate (bare, a reference, 100 apps, 5,000 apps) so load on the shared machine
hits all of them alike. Two references: the Apps screen's four widgets in a plain Textual app (the floor for
tenantdeck's screen), and the same app after it has read the whole draft with tenantdeck's parser (the floor for any
editor that reads the draft before its first paint). The figure is the median of the rounds over the bare app's
median. A draft big enough for the parse cache (:mod:`tenantdeck.draft.parsecache`, >= 1 MB: the 5,000-app one) is
timed twice: "cold", its parse cache emptied before each run (the first open of that text; the theme verdicts cached
by an earlier start stay, as on any start but the first after installing), and "warm", with the cache entry that the
TUI's validation worker writes after a first open (written by the benchmark beforehand, the same call). A draft of
1 MB or more opens on its first apps while a worker reads the rest (``tui.editor.PROGRESSIVE_MIN_BYTES``);
one of 32-256 KB (the 100-app drafts) on its first apps too, read right after that frame (``PAINT_FIRST_BYTES``).

Peak memory is the TUI process's own high-water mark (``VmHWM`` of ``/proc/PID/status``, read just before the
process is stopped; not ``RUSAGE_CHILDREN``, which is the maximum over every child this benchmark ever reaped), on
separate runs that wait until the validation worker has filled the Problems column (an ``ok`` appears) and the
screen has then been quiet for half a second.

Three draft shapes (``--shapes``), all generated:

- ``bench``: every third app has a complete widget written out (all 46 toggles), SMS settings, two webhooks with
  Basic Auth, a team, app settings and three extensions' settings (``bench/validate.py``'s ``build_app``); the
  others' widget extends the preset ``support`` and overrides its name and a toggle, with one webhook;
- ``sample``: the draft ``tenantdeck init`` writes (:mod:`tenantdeck.draft.sample`, comments and all), its two apps
  replicated under new names (``Acme Support 00000``, ``Globex 00000``...): what a team that started from ``init``
  has; timed at the smallest ``--apps`` only, until ``Acme Support 00000`` is on the screen;
- ``full``: every app with every kind (``bench/validate.py``'s ``build_draft_text``: team, app settings, the
  profanity-filter, data-masking and push-notification settings, a full widget, SMS, two webhooks); at the largest
  ``--apps`` only, where the peak-memory target applies.

Each run also records the CPU time the process had used when its first frame was read (``/proc/PID/stat``), which
moves less than the wall time with other processes on a shared machine.

    .venv/bin/python bench/tui_startup.py [--rounds R] [--apps 100 5000] [--shapes bench sample full] [--no-rss]

Targets (issue 24): <= 1.3x the bare app with 100 apps (both shapes), <= 2x with 5,000 (every case), peak memory
<= 400 MiB with 5,000 apps of every kind. Exit 1 when one is missed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import fcntl
import os
import platform
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import ROOT, process_env, warm_bytecode
from validate import build_app, build_draft_text

sys.path.insert(0, str(ROOT / "src"))

#: issue 24: the first frame at 100 apps (both shapes) and at 5,000 (every case); peak memory at 5,000 every kind
TARGETS = {100: 1.3, 5000: 2.0}
RSS_TARGET_MIB = 400
COLS, ROWS = 100, 30
HELLO = """\
from textual.app import App
from textual.widgets import Static


class Hello(App):
    def compose(self):
        yield Static("Hello")


Hello().run()
"""
# The Apps screen's four widgets (Header, filter Input, a DataTable of the same columns, Footer) in a plain Textual
# app, filled from ROWS, which the two scripts below define.
_FOUR_WIDGETS = """\

from textual.app import App
from textual.widgets import DataTable, Footer, Header, Input


class Widgets(App):
    def compose(self):
        yield Header()
        yield Input(placeholder="Filter apps: name, region or id  (/)")
        yield DataTable(cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns("Name", "Region", "Widgets", "Webhooks", "Problems", "Change")
        for name, region in ROWS:
            table.add_row(name, region, "1", "2", "checking", "…")
        table.focus()


Widgets().run()
"""
# The floor for tenantdeck's Apps screen: the four widgets with 100 rows, without tenantdeck. A reference, not a target.
WIDGETS = """\
ROWS = [(f"Tenant {i:05d}", ("us", "eu", "in")[i % 3]) for i in range(100)]
""" + _FOUR_WIDGETS
# The floor for any editor that reads the whole draft before painting: the same four widgets, after reading the draft
# with tenantdeck's own parser (libyaml events; 4-7x faster than yaml.CSafeLoader here) and nothing else of tenantdeck.
READ_THEN_PAINT = """\
import sys

from tenantdeck.draft import yamlsource

with open(sys.argv[1], encoding="utf-8") as fh:
    ROWS = [(app["name"], app["region"]) for app in yamlsource.parse(fh.read()).data["apps"][:80]]
""" + _FOUR_WIDGETS
# CSI sequences (cursor moves, colours), charset selections, keypad modes, OSC strings: stripped so that the
# markers are found in the text even when a colour change splits them.
_ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")


def build_mixed_draft_text(apps: int) -> str:
    """A fleet as it looks in practice: a third of the apps fully written out, the rest extending one preset."""
    preset = build_app(0)["widgets"][0]
    preset["name"] = "Support"
    rows: list[dict[str, Any]] = []
    for i in range(apps):
        if i % 3 == 0:
            rows.append(build_app(i))
            continue
        full = build_app(i)
        rows.append({
            "id": full["id"], "name": full["name"], "region": full["region"], "version": "3",
            "extensions": full["extensions"],
            "widgets": [{"extends": "support", "name": f"Support {i}", "main": {"send_gifs": i % 2 == 0}}],
            "webhooks": full["webhooks"][:1],
        })
    data = {"format": 1, "presets": {"support": preset}, "apps": rows}
    text = yaml.dump(data, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False, width=120)
    return "# benchmark draft written by bench/tui_startup.py\n" + text


#: the first app of the init-sample shape (``build_sample_draft_text``)
SAMPLE_FIRST = "Acme Support 00000"


def build_sample_draft_text(apps: int) -> str:
    """The draft ``tenantdeck init`` writes (comments and all), its two sample apps replicated under new names
    (``Acme Support 00000``, ``Globex 00000``, ``Acme Support 00001``...) until there are ``apps`` apps."""
    from tenantdeck.draft.sample import sample_text

    head, _, listed = sample_text("./tenantdeck.schema.json").partition("\napps:\n")
    acme, globex = listed.index("  - name: Acme Support\n"), listed.index("  - name: Globex\n")
    parts = [head, "\napps:\n", listed[:acme]]
    for i in range(apps):
        if i % 2 == 0:
            parts.append(listed[acme:globex].replace("name: Acme Support\n", f"name: Acme Support {i // 2:05d}\n", 1))
        else:
            parts.append(listed[globex:].replace("name: Globex\n", f"name: Globex {i // 2:05d}\n", 1)
                         .replace("id: globexevents\n", f"id: globexevents{i // 2}\n", 1))
    return "".join(parts)


def _cacheable(path: Path) -> bool:
    from tenantdeck.draft import parsecache

    return path.stat().st_size >= parsecache.MIN_CHARS


def _env_for(env: dict[str, str], tmp: Path, data: str | None) -> dict[str, str]:
    """The runs' environment with their own data directory; a "cold" one loses its parse cache before each run.

    Only the parse cache: the rest of the data directory (the theme files' validation verdicts) is what any start
    but the very first one after installing finds there. Emptying all of it made every cold run validate the
    theme files with pydantic, about 0.15 s that no later start of the editor pays.
    """
    if data is None:
        return env
    if data.startswith("cold"):
        shutil.rmtree(tmp / data / "cache" / "parse-cache", ignore_errors=True)
    # caches live in the cache directory (tenantdeck.locations.cache_dir): one per data directory here
    return {**env, "TENANTDECK_DATA_DIR": str(tmp / data), "TENANTDECK_CACHE_DIR": str(tmp / data / "cache")}


def _write_cache(path: Path, data_dir: Path) -> None:
    """The parse cache entry a first open in the TUI leaves behind (its validation worker's remember_parse)."""
    from tenantdeck.draft.session import DraftSession

    saved = {name: os.environ.get(name) for name in ("TENANTDECK_DATA_DIR", "TENANTDECK_CACHE_DIR")}
    os.environ["TENANTDECK_DATA_DIR"] = str(data_dir)
    os.environ["TENANTDECK_CACHE_DIR"] = str(data_dir / "cache")
    try:
        assert DraftSession.open(path, validate=False).remember_parse(), "the draft was not cached"
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def vm_hwm_kib(pid: int) -> int:
    """The process's own peak resident set (``VmHWM``), in KiB; 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user + system, all its threads); 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_in_pty(cmd: list[str], markers: list[bytes], env: dict[str, str], *, settle: bytes | None = None,
               timeout: float = 180.0) -> tuple[float, int, float]:
    """Seconds from spawning ``cmd`` until every marker has been written to the terminal; its VmHWM in KiB; and the
    CPU seconds it had used when the markers were read (less sensitive than the wall time to other processes on a
    shared machine; in clock ticks, 10 ms).

    With ``settle``, keeps reading after the first paint until ``settle`` has been written and the output has
    then been quiet for 0.5 s (the validation worker is done and its redraw painted), so the peak includes it.
    """
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
                            close_fds=True)
    os.close(slave)
    seen = b""
    painted: float | None = None
    settled_at: float | None = None
    deadline = start + timeout
    try:
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:
                    break
                seen += _ESCAPES.sub(b"", chunk)
                if settled_at is not None:
                    settled_at = time.perf_counter()
            if painted is None:
                if all(m in seen for m in markers):
                    painted = time.perf_counter() - start
                    cpu = cpu_seconds(proc.pid)
                    if settle is None:
                        break
                    seen = b""
                continue
            if settle is not None and settled_at is None and settle in seen:
                settled_at = time.perf_counter()
            if settled_at is not None and time.perf_counter() - settled_at >= 0.5:
                break
        if painted is None:
            raise RuntimeError(f"{cmd[-1]}: no first paint within {timeout} s (saw {seen[-300:]!r})")
        peak = vm_hwm_kib(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(master)
    return painted, peak, cpu


#: the draft shapes: (generator, the first app's name, the marker of the first frame)
SHAPES = ("bench", "sample", "full")
SHAPE_NAMES = {"bench": "bench shape", "sample": "init sample", "full": "every kind"}


def build_draft(shape: str, apps: int) -> str:
    """The text of a draft of ``apps`` apps of ``shape`` (see the module docstring)."""
    if shape == "sample":
        return build_sample_draft_text(apps)
    if shape == "full":
        return build_draft_text(apps)
    return build_mixed_draft_text(apps)


def first_name(shape: str) -> bytes:
    """The first app's name in a draft of ``shape``: the first frame is painted once it is on the screen."""
    return SAMPLE_FIRST.encode() if shape == "sample" else b"Tenant 00000"


def _figure(runs: list[tuple[float, float]], base: tuple[float, float]) -> str:
    """Median wall time over the bare app's, every round's, and the same for the CPU time at the first frame."""
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    return (f"median {wall:.3f} s = {wall / base[0]:.2f}x (all: {', '.join(f'{r[0]:.2f}' for r in runs)}); "
            f"CPU {cpu:.2f} s = {cpu / base[1]:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--apps", type=int, nargs="+", default=[100, 5000])
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES),
                        help="draft shapes (the init sample at the smallest --apps only)")
    parser.add_argument("--no-rss", action="store_true", help="skip the peak-memory runs")
    args = parser.parse_args()
    warm_bytecode()
    with tempfile.TemporaryDirectory(prefix="tenantdeck-bench-") as tmp_name:
        tmp = Path(tmp_name)
        env = process_env(TERM="xterm-256color", COLUMNS=str(COLS), LINES=str(ROWS),
                          TENANTDECK_CONFIG_DIR=str(tmp / "config"), TENANTDECK_DATA_DIR=str(tmp / "data"),
                          TENANTDECK_CACHE_DIR=str(tmp / "data" / "cache"))
        env.pop("NO_COLOR", None)
        env.pop("TEXTUAL", None)
        hello = tmp / "hello.py"
        hello.write_text(HELLO)
        # (apps, shape) -> the draft; the init sample only at the smallest size (it is the first-frame shape of a
        # team starting from `tenantdeck init`), the every-kind shape only at the largest
        drafts: dict[tuple[int, str], Path] = {}
        for n in args.apps:
            for shape in args.shapes:
                if (shape == "sample" and n != min(args.apps)) or (shape == "full" and n != max(args.apps)):
                    continue
                drafts[n, shape] = tmp / f"{shape}{n}.yaml"
                drafts[n, shape].write_text(build_draft(shape, n), encoding="utf-8")
        bare_cmd = [sys.executable, str(hello)]
        widgets = tmp / "widgets.py"
        widgets.write_text(WIDGETS)
        widgets_cmd = [sys.executable, str(widgets)]
        floor = tmp / "read_then_paint.py"
        floor.write_text(READ_THEN_PAINT)
        # the read-then-paint floor of the bench shape's drafts (the others' would only add minutes to the run)
        floor_cmds = {n: [sys.executable, str(floor), str(path)] for (n, shape), path in drafts.items()
                      if shape == "bench"}
        marker = [b"Tenant 00000", b"Filter apps"]
        # Each draft is opened "cold" (no parse cache: the first open of this text) and, when it is big enough to
        # be cached (tenantdeck.draft.parsecache), also "warm" (the entry the TUI writes after a first open).
        cases: dict[str, tuple[int, list[str], str | None, list[bytes]]] = {}
        for (n, shape), path in drafts.items():
            cmd = [sys.executable, "-m", "tenantdeck", "edit", str(path)]
            shown = [first_name(shape), b"Filter apps"]
            label = f"{n} apps, {SHAPE_NAMES[shape]}"
            cases[label + (", cold" if _cacheable(path) else "")] = (n, cmd, f"cold{shape}{n}", shown)
            if _cacheable(path):
                cases[label + ", warm"] = (n, cmd, f"warm{shape}{n}", shown)
                _write_cache(path, tmp / f"warm{shape}{n}")
        run_in_pty(bare_cmd, [b"Hello"], env)  # warm the page cache
        for _, cmd, data, shown in cases.values():
            run_in_pty(cmd, shown, _env_for(env, tmp, data))
        run_in_pty(widgets_cmd, marker, env)
        # (wall, CPU) seconds of each round
        bare: list[tuple[float, float]] = []
        widgets_floor: list[tuple[float, float]] = []
        read_floor: dict[int, list[tuple[float, float]]] = {n: [] for n in floor_cmds}
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}

        def timed(cmd: list[str], markers: list[bytes], run_env: dict[str, str]) -> tuple[float, float]:
            wall, _, cpu = run_in_pty(cmd, markers, run_env)
            return wall, cpu

        for _ in range(args.rounds):
            bare.append(timed(bare_cmd, [b"Hello"], env))
            widgets_floor.append(timed(widgets_cmd, marker, env))
            for n, cmd in floor_cmds.items():
                read_floor[n].append(timed(cmd, marker, env))
            for name, (_, cmd, data, shown) in cases.items():
                times[name].append(timed(cmd, shown, _env_for(env, tmp, data)))
        peaks = {} if args.no_rss else {
            name: run_in_pty(cmd, shown, _env_for(env, tmp, data), settle=b" ok ", timeout=600)[1]
            for name, (n, cmd, data, shown) in cases.items() if n == max(args.apps) or n == min(args.apps)}
        bare_peak = run_in_pty(bare_cmd, [b"Hello"], env)[1]
        sizes = {key: path.stat().st_size for key, path in drafts.items()}
        shapes = {name: next(shape for (n, shape) in drafts if f"{n} apps, {SHAPE_NAMES[shape]}" in name)
                  for name in cases}

    base = (statistics.median(r[0] for r in bare), statistics.median(r[1] for r in bare))
    print(f"tui_startup {dt.date.today()} {platform.machine()} Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, {args.rounds} rounds, {COLS}x{ROWS} pty, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    print(f"  bare Textual hello-world: median {base[0]:.3f} s (all: {', '.join(f'{r[0]:.2f}' for r in bare)}); "
          f"CPU {base[1]:.2f} s; peak RSS {bare_peak / 1024:.0f} MiB")
    print(f"  reference, the same four widgets in a plain Textual app (100 rows): {_figure(widgets_floor, base)}")
    for n, values in read_floor.items():
        print(f"  reference, read all {n} apps then paint those widgets (the floor of painting after reading the "
              f"whole draft): {_figure(values, base)}")
    missed = False
    for name, (n, _, _, _) in cases.items():
        ratio = statistics.median(r[0] for r in times[name]) / base[0]
        target = TARGETS.get(n)
        verdict = "" if target is None else (" ok" if ratio <= target else f" OVER the {target}x target")
        missed |= target is not None and ratio > target
        peak = ""
        if name in peaks:
            rss = peaks[name] / 1024
            over = n == max(args.apps) and shapes[name] == "full" and rss > RSS_TARGET_MIB
            missed |= over
            peak = f"; peak RSS after validation {rss:.0f} MiB" + (f" OVER the {RSS_TARGET_MIB} MiB target" if over
                                                                   else "")
        print(f"  {name} ({sizes[n, shapes[name]] / 1e6:.1f} MB): {_figure(times[name], base)}{verdict}{peak}")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
