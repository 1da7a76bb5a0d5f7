"""SMS notification settings (``sms-notification/v1/settings``): exactly the five fields the API takes.

The model is the catalog's (:mod:`tenantdeck.models.extension_catalog`), like every other extension's settings; a
draft keeps SMS under the app's own ``sms`` key, where drafts have always had it.
"""

from __future__ import annotations

from tenantdeck.models.extension_settings import SmsSettings

__all__ = ["SmsSettings"]
