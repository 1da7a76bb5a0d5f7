"""The TUI's user preferences, as plain data (no Textual): theme files, the remembered settings and the keymap.

Each loader returns what it could read plus located, human problems for what it could not, so the editor can fall
back and say why instead of failing to start. Files live in the config directory (``TENANTDECK_CONFIG_DIR``
honoured, :func:`tenantdeck.targets.config_dir`).
"""
