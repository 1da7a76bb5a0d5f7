"""Fixtures of the fleet policies' TUI tests, shared with ``scripts/screenshots.py`` through
``safety_fixtures.scenes``: the fleet draft with one webhook to another host (``drafts/policies-demo.yaml``) and its
rules (``drafts/policies-demo.policies.yaml``: an error and a warning rule broken, a rule that compiles but raises
on every app, one that does not compile), and the scenes that reach each screen.

Deterministic: no clocks, no sleeps.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual.pilot import Pilot

from tests.tui.pilot import settle

POLICIES = "policies-demo"


async def apps_scene(pilot: Pilot[Any]) -> None:
    """The Apps list once validated: the Policy column shows each app's badge."""
    await settle(pilot)


async def policies_scene(pilot: Pilot[Any]) -> None:
    """The Policies screen (P on the Apps list): the rules, then the rules file's problems."""
    await settle(pilot)
    await pilot.press("P")
    await settle(pilot)


async def policy_apps_scene(pilot: Pilot[Any]) -> None:
    """The apps breaking `no-gifs` (Enter on the first rule)."""
    await policies_scene(pilot)
    await pilot.press("enter")
    await settle(pilot)


def scenes() -> dict[str, tuple[str, bool, Callable[[Pilot[Any]], Awaitable[None]]]]:
    return {"apps-policies": (POLICIES, False, apps_scene), "policies": (POLICIES, False, policies_scene),
            "policy-apps": (POLICIES, False, policy_apps_scene)}
