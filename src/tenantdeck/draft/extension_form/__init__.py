"""One extension's settings as the editor's generated form, in three parts: :mod:`.model` (the rows, built from the
catalog and the draft), :mod:`.parsing` (typed text to values) and :mod:`.edits` (what each key writes).
:mod:`tenantdeck.draft.extension_settings_view` gathers their public names for the TUI."""
