"""Benchmark: fleet policies (issue 26) over 5,000 apps, in process.

(a) Full evaluation: 20 rules (16 shorthands of every kind, 4 ``cel`` checks) over every app of the full draft of
    ``bench/validate.py`` (every app writes a complete widget, SMS, two webhooks, a team, app settings and three
    extensions' settings), with ``PolicyEngine.evaluate`` on the draft's plain data (what the editor and
    ``validate`` do). Baselines in the same run: a plain Python loop checking the same 20 conditions by hand on
    the same data (no normalisation, no presets: the floor of "looking at every app for every rule"), and a bare
    ``yaml.load`` (libyaml) of the draft's text.
(b) One edit: what the editor does after an edit of one app: ``PolicyEngine.update(apps, presets, changed=[i])``,
    and the same followed by the per-app badges the Apps list shows (``policies.view.FleetPolicies``, which also
    says which rows' badges changed).

Targets (issue 26): (a) <= 200 ms; (b) <= 5 ms. Wall and CPU time are both printed (the machine is shared);
the load average is printed first.

    PYTHONPATH=src python bench/policies.py [--apps 5000] [--rounds 7] [--sparse]
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from validate import build_draft_text, build_sparse_draft_text  # noqa: E402

TARGET_FULL = 0.200
TARGET_ONE = 0.005

#: 20 rules: every shorthand, a few selectors, four cel checks (the issue's examples among them)
RULES = """\
format: 1
policies:
  - name: no-gifs
    check: {field: "widgets[*].main.send_gifs", equals: false}
    message: GIFs stay off
  - name: brand-colour
    check: {field: "widgets[*].style.primary_color", one_of: ["#03A9F4", "#000000", "#FF5722"]}
    severity: warning
    message: the primary colour is one of the brand's
  - name: https-webhooks
    check: {field: "webhooks[*].webhookURL", matches: "^https://"}
    message: webhooks use https
  - name: webhook-names
    check: {field: "webhooks[*].name", required: true}
    message: every webhook has a name
  - name: two-admins
    check: {field: "team.admins", count: {min: 1}}
    message: at least one admin
  - name: no-custom-js
    check: {field: "widgets[*].style.custom_js", one_of: ["v2"]}
    severity: warning
    message: no custom script
  - name: region-known
    check: {field: region, one_of: [us, eu, in]}
    message: a known region
  - name: version-3
    check: {field: version, equals: "3"}
    message: version 3
  - name: reactions-on
    check: {field: "widgets[*].main.allow_message_reactions", equals: true}
    message: reactions on
  - name: no-location
    check: {field: "widgets[*].main.share_location", equals: false}
    severity: warning
    message: no location sharing
  - name: eu-moderators
    select: {names: ["Tenant 0*"]}
    check: {field: "team.moderators", count: {min: 1, max: 5}}
    message: a few moderators
  - name: calls-listed
    check: {field: "widgets[*].sidebar.calls", equals: true}
    message: calls in the sidebar
  - name: basic-auth-user
    check: {field: "webhooks[*].username", matches: "^[a-z]+$"}
    severity: warning
    message: a plain user name
  - name: no-e2ee
    check: {field: "extensions.enabled", count: {max: 8}}
    message: a handful of extensions
  - name: same-delay
    check: {field: "sms.messageDelay", same: true}
    message: one SMS delay for the fleet
  - name: no-forbidden-css
    check: {field: "widgets[*].style.custom_css", matches: "^[^<]*$"}
    message: no markup in the CSS
  - name: sms-provider
    check: {cel: "!has(app.sms) || app.sms.twilioAccountSid != ''"}
    message: SMS never on without a provider
  - name: hooks-retry
    check: {cel: "app.webhooks.all(w, w.enabled)"}
    severity: warning
    message: every webhook is enabled
  - name: few-hooks
    check: {cel: "size(app.webhooks) <= 3"}
    message: at most three webhooks
  - name: admins-example
    check: {cel: "!has(app.team) || app.team.admins.all(a, a.endsWith('.example'))"}
    message: admins are ours
"""


def hand_loop(apps: list[Any]) -> int:
    """The same 20 conditions written out by hand over the plain data (widgets as written: no preset merged):
    the floor of visiting every app for every rule in Python."""
    bad = 0
    url = re.compile("^https://")
    user = re.compile("^[a-z]+$")
    css = re.compile("^[^<]*$")
    delays: dict[Any, int] = {}
    for app in apps:
        for w in app.get("widgets") or []:
            main, style, sidebar = w.get("main") or {}, w.get("style") or {}, w.get("sidebar") or {}
            bad += main.get("send_gifs") is not False
            bad += style.get("primary_color") not in ("#03A9F4", "#000000", "#FF5722")
            bad += style.get("custom_js") not in ("v2",)
            bad += main.get("allow_message_reactions") is not True
            bad += main.get("share_location") is not False
            bad += sidebar.get("calls") is not True
            bad += not css.search(str(style.get("custom_css", "")))
        for h in app.get("webhooks") or []:
            bad += not url.search(str(h.get("webhookURL", "")))
            bad += not h.get("name")
            bad += not user.search(str(h.get("username", "")))
            bad += not h.get("enabled")
        team = app.get("team") or {}
        bad += len(team.get("admins") or []) < 1
        if str(app.get("name", "")).startswith("Tenant 0"):
            bad += not 1 <= len(team.get("moderators") or []) <= 5
            bad += not all(str(a).endswith(".example") for a in team.get("admins") or [])
        bad += app.get("region") not in ("us", "eu", "in")
        bad += app.get("version") != "3"
        bad += len((app.get("extensions") or {}).get("enabled") or []) > 8
        sms = app.get("sms")
        bad += sms is not None and sms.get("twilioAccountSid") == ""
        bad += len(app.get("webhooks") or []) > 3
        delay = (sms or {}).get("messageDelay")
        delays[delay] = delays.get(delay, 0) + 1
    return bad


def clock(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def med(values: list[float]) -> float:
    return statistics.median(values)


def run(name: str, text: str, rounds: int) -> bool:
    from tenantdeck.policies.evaluator import PolicyEngine
    from tenantdeck.policies.model import load_policies
    from tenantdeck.policies.view import FleetPolicies

    with tempfile.TemporaryDirectory() as tmp:
        draft = Path(tmp) / "bench.yaml"
        draft.write_text(text, encoding="utf-8")
        rules = Path(tmp) / "bench.policies.yaml"
        rules.write_text(RULES, encoding="utf-8")
        policies = load_policies(rules)
        assert not policies.problems, [p.render() for p in policies.problems]
        assert len(policies.rules) == 20
        data = yaml.load(text, Loader=yaml.CSafeLoader)
        apps, presets = data["apps"], data.get("presets")
        fleet = FleetPolicies(draft)
        fleet.evaluate(apps, presets)

        load_w, loop_w, loop_c, full_w, full_c = [], [], [], [], []
        for _ in range(rounds):
            load_w.append(clock(lambda: yaml.load(text, Loader=yaml.CSafeLoader))[0])
            w, c, _ = clock(lambda: hand_loop(apps))
            loop_w.append(w)
            loop_c.append(c)
            w, c, evaluation = clock(lambda: PolicyEngine(policies).evaluate(apps, presets))
            full_w.append(w)
            full_c.append(c)
        found = len(evaluation.violations)

        # (b) one edit: flip one app's toggle (a new violation), then update that app only
        engine = PolicyEngine(policies)
        engine.evaluate(apps, presets)
        one_w, one_c, badge_w, badge_c = [], [], [], []
        edited = copy.deepcopy(apps)
        for r in range(rounds * 20):
            i = (r * 997) % len(edited)
            widget = edited[i]["widgets"][0]
            main = widget.setdefault("main", {})
            main["send_gifs"] = not main.get("send_gifs", False)
            w, c, after = clock(lambda i=i: engine.update(edited, presets, changed=[i]))
            one_w.append(w)
            one_c.append(c)
            w, c, _ = clock(lambda i=i: fleet.update(edited, presets, changed=[i]))
            badge_w.append(w)
            badge_c.append(c)
        check = PolicyEngine(policies).evaluate(edited, presets)
        assert [v.to_json() for v in check.violations] == [v.to_json() for v in after.violations]
        assert fleet.evaluation is not None
        assert [v.to_json() for v in check.violations] == [v.to_json() for v in fleet.evaluation.violations]

    size = len(text.encode()) / 1e6
    print(f"\n{name} draft: {len(apps)} apps, {size:.1f} MB, 20 rules (4 cel), {found} violations; "
          f"{rounds} rounds, median")
    print(f"  bare yaml.load (CSafeLoader)      {med(load_w) * 1000:8.1f} ms wall")
    print(f"  hand-written loop, same checks    {med(loop_w) * 1000:8.1f} ms wall {med(loop_c) * 1000:8.1f} ms CPU")
    print(f"(a) PolicyEngine.evaluate           {med(full_w) * 1000:8.1f} ms wall {med(full_c) * 1000:8.1f} ms CPU"
          f"  = {med(full_c) / med(loop_c):.1f}x the loop, {med(full_w) / med(load_w):.2f}x the load"
          f"  (target <= {TARGET_FULL * 1000:.0f} ms)")
    print(f"(b) update(changed=[i]), one edit   {med(one_w) * 1000:8.2f} ms wall {med(one_c) * 1000:8.2f} ms CPU"
          f"  (max {max(one_w) * 1000:.2f} ms; target <= {TARGET_ONE * 1000:.0f} ms)")
    print(f"    + the Apps list's badges        {med(badge_w) * 1000:8.2f} ms wall {med(badge_c) * 1000:8.2f} ms CPU"
          f"  (max {max(badge_w) * 1000:.2f} ms)")
    return med(full_c) <= TARGET_FULL and med(badge_c) <= TARGET_ONE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--sparse", action="store_true", help="also the sparse draft (widgets extend a preset)")
    args = parser.parse_args()
    print(f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC; load average {os.getloadavg()[0]:.2f}; "
          f"{platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}")
    ok = run("full", build_draft_text(args.apps), args.rounds)
    if args.sparse:
        ok = run("sparse", build_sparse_draft_text(args.apps), args.rounds) and ok
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
