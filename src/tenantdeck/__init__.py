"""tenantdeck: a typed YAML draft of a multi-tenant chat account, validated offline and pushed safely."""

__version__ = "0.1.0"
