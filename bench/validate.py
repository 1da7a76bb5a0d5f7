"""Benchmark: `tenantdeck validate` on 1,000-app drafts versus a bare `yaml.load` with libyaml, as whole processes.

Two drafts: "full" (every app writes a complete widget, SMS and two webhooks; 3.5 MB) and "sparse" (the common
fleet shape: every widget extends one preset and overrides its name and one toggle; 0.24 MB, where start-up
counts most).

The target (docs/benchmarks.md, "validate") is that validating, with strict models, cross-object rules and located
problems, costs at most 1.3x what merely parsing the same file with ``yaml.CSafeLoader`` costs. Both commands run
as fresh processes, alternating, so interpreter start-up and imports count exactly as a user sees them.

    .venv/bin/python bench/validate.py [--apps N] [--rounds R] [--keep DIR] [--draft full|sparse|both]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import process_env, warm_bytecode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from tenantdeck.models import catalog  # noqa: E402
from tenantdeck.models.extension_catalog import BY_ID  # noqa: E402

TARGET = 1.3


_MASKS = BY_ID["data-masking"].setting("defaultRegexData").default  # type: ignore[union-attr]


def build_app(i: int) -> dict[str, Any]:
    """One app with a complete widget (every toggle written out), SMS settings, two webhooks, a team, every app
    setting, and profanity-filter, data-masking and push-notification settings (issue 22: every kind)."""
    main = {t.key: bool(t.default) for t in catalog.MAIN_TOGGLES}
    style = {"custom_css": f".cd-{i} {{ color: #333; }}", **catalog.STYLE_DEFAULTS}
    sidebar = {**catalog.SIDEBAR_DEFAULTS, "calls": True, "user_settings": True}
    sidebar["sidebar_navigation_sequence"] = list(catalog.NAVIGATION_SECTIONS)  # no shared objects: no aliases
    return {
        "id": f"app{i:05d}",
        "name": f"Tenant {i:05d}",
        "region": ("us", "eu", "in")[i % 3],
        "version": "3",
        "extensions": {"enabled": ["stickers", "polls", "reactions", "profanity-filter", "data-masking",
                                   "push-notification"], "disabled": ["e2ee"]},
        "widgets": [{"name": f"Support {i}", "version": "v2", "style": style, "sidebar": sidebar, "main": main}],
        "sms": {
            "fromMobileNo": "+12345678",
            "messageDelay": 60,
            "twilioAccountSid": f"AC{i:032d}",
            "twilioAuthToken": "${TWILIO_AUTH_TOKEN}",
            "websiteURL": "www.example.com",
        },
        "webhooks": [
            {
                "id": f"wh{i}x{w}",
                "name": f"Hook {w}",
                "webhookURL": f"https://hooks.example.com/tenants/{i}/events/{w}",
                "useBasicAuth": True,
                "username": "tenantdeck",
                "password": "${HOOK_PASSWORD}",
                "enabled": True,
                "retryOnFailure": False,
                "triggers": ["message_sent", "group_created", "group_member_joined"],
            }
            for w in range(2)
        ],
        "team": {"admins": [f"admin{i}@tenants.example"], "moderators": [f"mod{i}@tenants.example"]},
        "extension_settings": {
            "profanity-filter": {"dropMessage": False, "badwords": ["darn", "heck", f"tenant{i}"]},
            "data-masking": {
                "dropMessage": False,
                "defaultRegexData": [dict(m) for m in _MASKS],
                "customregexData": [{"id": f"c{i}", "name": "Order numbers", "regex": r"ORD-\d{6}"}],
            },
            "push-notification": {
                "version": 2, "pushProvider": 1,
                "fcmCredentials": {"project_id": f"tenant{i}", "client_email": f"push@tenant{i}.example",
                                   "private_key": "${FCM_PRIVATE_KEY}", "private_key_id": f"k{i}"},
                "sendEditMessageNotification": True,
            },
        },
        "settings": {s.key: (["preferences", "templates"] if not s.settable else i % 2 == 0)
                     for s in catalog.APP_SETTINGS},
    }


def build_draft_text(apps: int) -> str:
    data = {"format": 1, "presets": {}, "apps": [build_app(i) for i in range(apps)]}
    text = yaml.dump(data, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False, width=120)
    return "# benchmark draft written by bench/validate.py\n" + text


def build_sparse_draft_text(apps: int) -> str:
    """``apps`` apps whose one widget extends the preset ``support`` and overrides its name and one toggle."""
    preset = build_app(0)["widgets"][0]
    preset["name"] = "Support"
    data = {
        "format": 1,
        "presets": {"support": preset},
        "apps": [
            {
                "id": f"app{i:05d}",
                "name": f"Tenant {i:05d}",
                "region": ("us", "eu", "in")[i % 3],
                "version": "3",
                "extensions": {"enabled": ["stickers", "polls", "reactions"], "disabled": []},
                "widgets": [{"extends": "support", "name": f"Support {i}", "main": {"send_gifs": i % 2 == 0}}],
            }
            for i in range(apps)
        ],
    }
    text = yaml.dump(data, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False, width=120)
    return "# sparse benchmark draft written by bench/validate.py\n" + text


def timed(cmd: list[str], *, expect: int = 0) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, check=False, env=process_env()
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != expect:
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-2000:]}")
    return elapsed


def measure(name: str, text: str, rounds: int, directory: Path) -> float:
    target = directory / f"bench-{name}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    size = target.stat().st_size
    py = sys.executable
    baseline = [py, "-c", f"import yaml; yaml.load(open({str(target)!r}), Loader=yaml.CSafeLoader)"]
    validate = [py, "-m", "tenantdeck", "validate", str(target)]
    # The floor of validating with the models at all: tenantdeck's parse of the file, pydantic and the draft models
    # imported, nothing validated, no command line.
    floor = [py, "-c", f"from tenantdeck.draft import yamlsource; import tenantdeck.models.draft; "
                       f"yamlsource.parse(open({str(target)!r}).read())"]
    timed(baseline)  # warm the page cache and the bytecode caches
    timed(validate)
    timed(floor)
    base_t: list[float] = []
    val_t: list[float] = []
    floor_t: list[float] = []
    for _ in range(rounds):
        base_t.append(timed(baseline))
        val_t.append(timed(validate))
        floor_t.append(timed(floor))
    b, v, f = statistics.median(base_t), statistics.median(val_t), statistics.median(floor_t)
    ratio = v / b
    print(f"\n{name} draft: {size / 1e6:.2f} MB; {rounds} rounds, alternating, median")
    print(f"(a) yaml.load CSafeLoader   {b:.3f} s   (all: {', '.join(f'{t:.2f}' for t in base_t)})")
    print(f"(b) tenantdeck validate     {v:.3f} s   (all: {', '.join(f'{t:.2f}' for t in val_t)})")
    print(f"(c) floor: parse + import the models, no validation  {f:.3f} s = {f / b:.2f}x (a)  "
          f"(all: {', '.join(f'{t:.2f}' for t in floor_t)})")
    print(f"ratio (b)/(a) = {ratio:.2f}  (target <= {TARGET})  {'OK' if ratio <= TARGET else 'OVER TARGET'}")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="write the drafts here instead of a temporary directory")
    parser.add_argument("--draft", choices=["full", "sparse", "both"], default="both")
    args = parser.parse_args()
    warm_bytecode()
    print(
        f"{args.apps} apps; machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, libyaml {yaml.__with_libyaml__}, {dt.date.today()}"
    )
    builders = {"full": build_draft_text, "sparse": build_sparse_draft_text}
    names = ["full", "sparse"] if args.draft == "both" else [args.draft]
    with tempfile.TemporaryDirectory() as tmp:
        ratios = [measure(n, builders[n](args.apps), args.rounds, args.keep or Path(tmp)) for n in names]
    if max(ratios) > TARGET:
        sys.exit(1)


if __name__ == "__main__":
    main()
