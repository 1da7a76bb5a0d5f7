"""The widget as visitors will see it: a live preview in a real browser, beside the editor (issue 39).

- :mod:`.model`: what one page shows, as data (the widget's effective settings resolved in one place, the scene the
  editor's Preview tab paints, which images may load);
- :mod:`.page`: that as HTML, escaped for where each value goes, the widget in a sandboxed frame under a
  Content-Security-Policy that runs no script but the page's own;
- :mod:`.server`: loopback, a random token, server-sent events on every change of the draft.

No Textual here (the editor's key and palette entry are in ``tenantdeck.tui.browser_preview``); docs/preview.md.
"""
