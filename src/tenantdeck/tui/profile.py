"""Which profile the editor plans, pushes and pulls against, as its screens' subtitles say it. A module of its own
because the review and pull screens show it and the palette switches it: neither may import the other."""

from __future__ import annotations

from typing import Any


def current_profile(profile: str | None) -> str:
    """The profile name the editor works against: the chosen one, else ``TENANTDECK_PROFILE``, else ``default:`` of
    profiles.yaml, else local (``custom`` when ``TENANTDECK_BASE_URL`` overrides them all). Never raises: a broken
    file reads as unknown."""
    import os

    from tenantdeck.targets import ENV_BASE_URL, ENV_PROFILE, LOCAL, load_profiles, profiles_path

    if os.environ.get(ENV_BASE_URL):
        return "custom"
    if profile or os.environ.get(ENV_PROFILE):
        return profile or os.environ[ENV_PROFILE]
    try:
        path = profiles_path()
        config = load_profiles(path) if path.exists() else None
    except Exception:
        return "unknown (profiles.yaml cannot be read)"
    return (config.default if config else None) or LOCAL


#: set by ``tenantdeck edit --demo`` to the demo's own sandbox folder: the `local` profile then reaches that
#: sandbox, not the user's, and the sub-title says so (the README promises the demo never touches `local`'s)
DEMO_SANDBOX_ENV = "TENANTDECK_DEMO_SANDBOX"


def profile_label(name: str) -> str:
    """How every screen names profile ``name``: "demo sandbox" for `local` under ``edit --demo`` (the README's
    promise that the demo never touches the user's own `local` sandbox, said where it matters), else the name. One
    rule: the header and the pull/review status lines used to disagree ("demo sandbox" above, "local" below)."""
    import os

    from tenantdeck.targets import ENV_DATA_DIR, LOCAL

    demo = os.environ.get(DEMO_SANDBOX_ENV)
    if name == LOCAL and demo and demo == os.environ.get(ENV_DATA_DIR):
        return "demo sandbox"  # the title bar has room for little more at 80 columns
    return name


def profile_subtitle(profile: str | None) -> str:
    return f"profile: {profile_label(current_profile(profile))}"


def switch_to(app: Any, editor: Any, name: str) -> None:
    """Plan, push and pull against ``name`` from now on: every screen's sub-title says it, and a screen that follows
    the profile (the review: ``follow_profile``) plans again against it. The palette and the review's ``a`` key."""
    editor.profile = name
    app.sub_title = profile_subtitle(name)
    for screen in app.screen_stack:
        if str(getattr(screen, "sub_title", None) or "").startswith("profile: "):
            screen.sub_title = app.sub_title
        follow = getattr(screen, "follow_profile", None)
        if callable(follow):
            follow()
    app.notify(f"Profile {name}: reviews, pushes and pulls now go to it.", title="Profile", markup=False)
