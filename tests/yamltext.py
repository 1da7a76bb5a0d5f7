"""What a test may look for in YAML the tool wrote, as text."""

from __future__ import annotations


def has_id(text: str, value: str) -> bool:
    """``id: <value>`` is in ``text``, plain or quoted: the writer quotes a service id that YAML would otherwise read as
    a number (a hex id such as ``1e22048950191211`` or one of digits only), which a plain search missed."""
    return any(f"id: {quote}{value}{quote}" in text for quote in ("", "'", '"'))
