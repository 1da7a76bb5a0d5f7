"""The management API's resource groups, one module each, composed by :class:`~tenantdeck.api.client.ManagementClient`.

Each group is a class over :class:`~tenantdeck.api.transport.Transport` that knows its paths, bodies and answers,
and reaches the network only through the transport's ``_call``, ``_paged`` and ``_create`` (so retries, limits,
redaction and the create-then-confirm rule apply to every call alike): ``apps``, ``extensions`` (with their
settings), ``sms``, ``widgets``, ``webhooks`` (with triggers), ``team``, ``app_settings``, ``push_certificates``,
``ping``. ``common`` holds what several share. tests/api/test_client_split.py holds the rule.
"""
