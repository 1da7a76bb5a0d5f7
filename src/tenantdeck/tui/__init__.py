"""The Textual editor: one screen or widget per module, over the core's :class:`~tenantdeck.draft.session.DraftSession`.

Nothing outside this package imports Textual (``tests/test_import_hygiene.py``). Screens read and edit the draft
only through :class:`tenantdeck.tui.editor.Editor`, which owns the session and tells every widget what changed
(:class:`tenantdeck.tui.messages.DraftChanged`), so a widget never keeps its own copy of a value.
"""
