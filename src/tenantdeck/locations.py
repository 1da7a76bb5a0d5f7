"""Where tenantdeck keeps per-user files: the config directory (profiles, TUI settings, keymap, user themes), the
data directory (sandbox database, the demo) and the cache directory (what can be rebuilt: the parse cache of big
drafts, the theme files' verdicts). ``TENANTDECK_CONFIG_DIR`` / ``TENANTDECK_DATA_DIR`` / ``TENANTDECK_CACHE_DIR``
override them; ``tenantdeck doctor`` lists every path.

Its own module, importing only platformdirs, because the editor needs these paths before its first paint and
:mod:`tenantdeck.targets` (which re-exports them) imports httpx and pydantic.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

ENV_CONFIG_DIR = "TENANTDECK_CONFIG_DIR"
ENV_DATA_DIR = "TENANTDECK_DATA_DIR"
ENV_CACHE_DIR = "TENANTDECK_CACHE_DIR"


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    override = env.get(ENV_CONFIG_DIR)
    return Path(override).expanduser() if override else platformdirs.user_config_path("tenantdeck")


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    override = env.get(ENV_DATA_DIR)
    return Path(override).expanduser() if override else platformdirs.user_data_path("tenantdeck")


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Files that only save time and are rebuilt when missing: the platform's cache directory (``~/.cache`` on
    Linux), which backups skip and cleaners may empty, never the data directory (which holds the sandbox's
    database)."""
    env = os.environ if env is None else env
    override = env.get(ENV_CACHE_DIR)
    return Path(override).expanduser() if override else platformdirs.user_cache_path("tenantdeck")
