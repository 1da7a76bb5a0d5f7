"""One verifying TLS context per process (tenantdeck.tls): shared, and still checking what httpx checks."""

from __future__ import annotations

import ssl

import pytest

from tenantdeck.tls import verifying_context


def test_the_context_verifies_certificates_and_host_names_and_is_shared() -> None:
    ctx = verifying_context()
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname
    assert ctx.cert_store_stats()["x509_ca"] > 0, "a CA bundle is loaded"
    assert verifying_context() is ctx and verifying_context(trust_env=False) is verifying_context(trust_env=False)


def test_ssl_cert_file_is_honoured_where_the_environment_is_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    import certifi

    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    assert verifying_context() is not verifying_context(trust_env=False)
    monkeypatch.setenv("SSL_CERT_FILE", "/nonexistent/ca.pem")
    with pytest.raises(OSError):  # httpx's own rule: the named bundle, not certifi's
        verifying_context()
    assert verifying_context(trust_env=False).verify_mode == ssl.CERT_REQUIRED
