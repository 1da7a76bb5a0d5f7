"""Apps and their extension switches."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from tenantdeck.models import catalog
from tenantdeck.models.base import AppName, HeldAppName, StrictModel
from tenantdeck.models.sms import SmsSettings
from tenantdeck.models.webhook import Webhook, _unique
from tenantdeck.models.widget import WidgetDraft

Region = Literal["us", "eu", "in"]
ExtensionId = Literal[catalog.EXTENSION_IDS]  # type: ignore[valid-type]
ExtensionList = Annotated[list[ExtensionId], AfterValidator(_unique)]  # type: ignore[valid-type]


class AppCreate(StrictModel):
    """Body of ``POST /apps``."""

    name: AppName = Field(description="App name, at most 100 characters")
    region: Region = Field(description="Data region: us, eu or in")
    version: Literal["3"] = Field("3", description='App version: the string "3" (the only one offered)')
    skipSampleData: bool | None = Field(None, description="Create the app without sample users and groups")


class Extensions(StrictModel):
    """Which extensions this app enables and disables.

    Leaving the block out means "not managed here": the tool then does not know the app's extension state, and
    toggles that need an extension only get a warning.
    """

    enabled: ExtensionList = Field(default_factory=list, description="Extension ids to enable")
    disabled: ExtensionList = Field(default_factory=list, description="Extension ids to disable")


class App(StrictModel):
    """One tenant app and everything tenantdeck manages in it."""

    id: str | None = Field(None, description="appId on the service; absent = to be created")
    name: HeldAppName = Field(
        description="App name, at most 100 characters (a longer one the service holds is kept, with a warning)"
    )
    region: Region = Field(description="Data region: us, eu or in")
    version: Literal["3"] = Field("3", description='App version: the string "3"')
    extensions: Extensions | None = Field(None, description="Extensions enabled and disabled in this app")
    widgets: list[WidgetDraft] = Field(
        default_factory=list, max_length=catalog.WIDGETS_PER_APP, description="Chat widgets v2 (at most 25)"
    )
    sms: SmsSettings | None = Field(None, description="SMS notification settings")
    webhooks: list[Webhook] = Field(
        default_factory=list, max_length=catalog.WEBHOOKS_PER_APP, description="Webhooks (at most 25)"
    )
