"""Where tenantdeck keeps per-user files: the config directory (profiles, TUI settings, keymap, user themes) and the
data directory (sandbox database, caches). ``TENANTDECK_CONFIG_DIR`` / ``TENANTDECK_DATA_DIR`` override them.

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


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    override = env.get(ENV_CONFIG_DIR)
    return Path(override).expanduser() if override else platformdirs.user_config_path("tenantdeck")


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    override = env.get(ENV_DATA_DIR)
    return Path(override).expanduser() if override else platformdirs.user_data_path("tenantdeck")
