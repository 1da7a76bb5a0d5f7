"""The editor's screens: one per file, opened by :mod:`tenantdeck.tui.navigation`."""
