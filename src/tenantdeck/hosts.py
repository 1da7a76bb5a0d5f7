"""Which hosts are this machine: the one rule behind every "plain http only to loopback" check.

Used for the service's base URL (no key and secret over plain http elsewhere), the sandbox's listen address, and
webhook URLs in drafts. A name counts only if it is ``localhost`` or a loopback IP literal; a hostname such as
``127.example.com`` is resolved by DNS like any other and is not loopback.
"""

from __future__ import annotations

import ipaddress


def is_loopback_host(host: str | None) -> bool:
    """True for ``localhost`` and loopback addresses (``127.0.0.0/8``, ``::1``, bracketed or not)."""
    if not host:
        return False
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
