"""Reusable pieces the screens and tabs are built from: footer, header, secret input, payload tree, notices and
the yes/no confirm dialog. Nothing here imports a screen or a tab, so both may import anything here."""
