"""Reusable pieces the screens and tabs are built from: footer, header, secret input, payload tree, notices."""
