"""Step -> client call: the table of the management API call each plan step makes, and the one entry the push
executor uses (:func:`run_operation`).

The kinds (:mod:`tenantdeck.sync.kinds`) plan the steps and say how a step that succeeded changes the base, but they
do no I/O: what talking to the service means for each step lives here, beside the rest of the network side. A new
step kind needs its entry in :data:`CALLS` (``tests/sync/test_kinds_are_pure.py`` checks that every step has one).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from tenantdeck.api.client import ManagementClient
    from tenantdeck.sync.types import Step

#: ``(client, step, app id, payload with its secrets resolved)`` -> the ids the service assigned
Call = Callable[["ManagementClient", "Step", "str | None", dict[str, Any]], Awaitable[dict[str, Any]]]
#: ``(client, app id, the secret's field as a plan names it)`` -> the service's current value, when it reports it
SecretRead = Callable[["ManagementClient", str, str], Awaitable["str | None"]]


#: the :attr:`StepFailed.code` of a step whose input changed since the plan was made (a certificate file): the same
#: plan can only fail again, so what finishes the push is a new plan (the summary says so, keyed on this code)
CHANGED_SINCE_PLAN = "changed_since_plan"


class StepFailed(Exception):
    """The call returned, but the service reported that part of it did not apply (e.g. one trigger); or the step
    refused itself before sending. ``code`` names the kind where what to do next depends on it
    (:data:`CHANGED_SINCE_PLAN`), so no reader parses the message."""

    def __init__(self, message: str, *, code: str = "") -> None:
        super().__init__(message)
        self.code = code


def _all_confirmed(confirmed: Mapping[str, bool], what: str) -> dict[str, Any]:
    """A call that answers per item (an extension, a trigger, an email, a setting): every item the service did not
    confirm fails the step, named; the ones it did stay applied (the journal and a retry take it from there)."""
    failed = sorted(item for item, ok in confirmed.items() if not ok)
    if failed:
        raise StepFailed(f"the service did not {what} {', '.join(failed)}")
    return {}


def _app_id(step: Step, app_id: str | None) -> str:
    assert app_id is not None, f"{step.key}: no app id"
    return app_id


# -- the app ------------------------------------------------------------------------------------------------------


async def _create_app(client: ManagementClient, step: Step, app_id: str | None,
                      payload: dict[str, Any]) -> dict[str, Any]:
    app = await client.create_app(payload["name"], payload["region"], payload.get("version", "3"))
    return {"app_id": app.id}


async def _delete_app(client: ManagementClient, step: Step, app_id: str | None,
                      payload: dict[str, Any]) -> dict[str, Any]:
    await client.delete_app(_app_id(step, app_id))
    return {}


# -- extensions ---------------------------------------------------------------------------------------------------


async def _set_extensions(client: ManagementClient, step: Step, app_id: str | None,
                          payload: dict[str, Any]) -> dict[str, Any]:
    result = await client.set_extensions(_app_id(step, app_id), enabled=payload["enabled"],
                                         disabled=payload["disabled"])
    return _all_confirmed(result, "switch extension(s)")


# -- widgets ------------------------------------------------------------------------------------------------------


async def _create_widget(client: ManagementClient, step: Step, app_id: str | None,
                         payload: dict[str, Any]) -> dict[str, Any]:
    return {"widget_id": await client.create_widget(_app_id(step, app_id), payload["settings"])}


async def _update_widget(client: ManagementClient, step: Step, app_id: str | None,
                         payload: dict[str, Any]) -> dict[str, Any]:
    await client.update_widget(_app_id(step, app_id), step.rid, payload["settings"])
    return {}


# -- SMS ----------------------------------------------------------------------------------------------------------


async def _store_sms(client: ManagementClient, step: Step, app_id: str | None,
                     payload: dict[str, Any]) -> dict[str, Any]:
    await client.store_sms(_app_id(step, app_id), payload["settings"])
    return {}


async def _update_sms(client: ManagementClient, step: Step, app_id: str | None,
                      payload: dict[str, Any]) -> dict[str, Any]:
    await client.update_sms(_app_id(step, app_id), payload["settings"])
    return {}


async def _delete_sms(client: ManagementClient, step: Step, app_id: str | None,
                      payload: dict[str, Any]) -> dict[str, Any]:
    await client.delete_sms(_app_id(step, app_id))
    return {}


async def _sms_secret(client: ManagementClient, app_id: str, field: str) -> str | None:
    """The SMS API reports the token in clear (it is fingerprinted at once, never stored or shown)."""
    value = (await client.get_sms(app_id) or {}).get(field.rpartition(".")[2])
    return value if isinstance(value, str) and value else None


# -- extension settings -------------------------------------------------------------------------------------------


async def _store_extension_settings(client: ManagementClient, step: Step, app_id: str | None,
                                    payload: dict[str, Any]) -> dict[str, Any]:
    await client.store_extension_settings(_app_id(step, app_id), payload["ext"], payload["settings"])
    return {}


async def _update_extension_settings(client: ManagementClient, step: Step, app_id: str | None,
                                     payload: dict[str, Any]) -> dict[str, Any]:
    await client.update_extension_settings(_app_id(step, app_id), payload["ext"], payload["settings"])
    return {}


async def _delete_extension_settings(client: ManagementClient, step: Step, app_id: str | None,
                                     payload: dict[str, Any]) -> dict[str, Any]:
    await client.delete_extension_settings(_app_id(step, app_id), payload["ext"])
    return {}


async def _extension_secret(client: ManagementClient, app_id: str, field: str) -> str | None:
    """These APIs report their secrets in clear, like SMS: ``extension_settings.<ext>.<path...>`` is read from the
    extension's current settings (fingerprinted or sent at once, never stored or shown)."""
    from tenantdeck.sync.types import value_at

    _, ext, path = field.split(".", 2)
    value = value_at(await client.get_extension_settings(app_id, ext), path)
    return value if isinstance(value, str) and value else None


async def _upload_certificate(client: ManagementClient, step: Step, app_id: str | None,
                              payload: dict[str, Any]) -> dict[str, Any]:
    """Uploads the bytes :func:`attach_files` read (they go to the request and nowhere else)."""
    from pathlib import PurePath

    content = payload.get("content")
    if not isinstance(content, bytes):
        raise StepFailed(f"the certificate {payload['path']} was not read before its upload")
    await client.upload_certificate(_app_id(step, app_id), payload["certificate"], PurePath(payload["path"]).name,
                                    content)
    return {}


def attach_files(step: Step, payload: dict[str, Any], *, folder: Path | None, env: Mapping[str, str],
                 secret_key: bytes) -> dict[str, Any]:
    """``payload`` with the content of the file a step uploads (a certificate), read now and once, through
    :func:`~tenantdeck.models.certfiles.read_certificate` (inside the draft's folder, a regular file, bounded). The
    bytes sent are the bytes whose fingerprint the plan shows: a file that changed (or became unreadable) since
    the plan was made fails the step, and nothing of it is sent. Other steps' payloads are returned as they are."""
    if step.kind != "upload_certificate":
        return payload
    from tenantdeck.models.certfiles import read_certificate
    from tenantdeck.models.secrets import fingerprint
    from tenantdeck.safefile import FileRefused

    try:
        content = read_certificate(payload["path"], folder, env, kind=payload.get("certificate"))
    except FileRefused as exc:
        raise StepFailed(f"cannot read the certificate file {payload['path']!r}: {exc.reason}") from None
    if fingerprint(content, secret_key) != payload.get("fingerprint"):
        raise StepFailed(f"the certificate file {payload['path']!r} changed since the plan was made; nothing was "
                         "sent (plan or push again)", code=CHANGED_SINCE_PLAN)
    return {**payload, "content": content}


# -- webhooks and their triggers ----------------------------------------------------------------------------------


async def _create_webhook(client: ManagementClient, step: Step, app_id: str | None,
                          payload: dict[str, Any]) -> dict[str, Any]:
    await client.create_webhook(_app_id(step, app_id), payload)
    return {}


async def _update_webhook(client: ManagementClient, step: Step, app_id: str | None,
                          payload: dict[str, Any]) -> dict[str, Any]:
    await client.update_webhook(_app_id(step, app_id), step.rid, payload)
    return {}


async def _delete_webhook(client: ManagementClient, step: Step, app_id: str | None,
                          payload: dict[str, Any]) -> dict[str, Any]:
    await client.delete_webhook(_app_id(step, app_id), step.rid)
    return {}


async def _add_triggers(client: ManagementClient, step: Step, app_id: str | None,
                        payload: dict[str, Any]) -> dict[str, Any]:
    result = await client.add_triggers(_app_id(step, app_id), step.rid, payload["ids"])
    return _all_confirmed(result, "add trigger(s)")


async def _remove_triggers(client: ManagementClient, step: Step, app_id: str | None,
                           payload: dict[str, Any]) -> dict[str, Any]:
    await client.remove_triggers(_app_id(step, app_id), step.rid, payload["ids"])
    return {}


# -- the team -----------------------------------------------------------------------------------------------------


async def _update_team(client: ManagementClient, step: Step, app_id: str | None,
                       payload: dict[str, Any]) -> dict[str, Any]:
    """Adds, changes the role of and removes the emails that changed, in one request; an email the service
    answers ``success: false`` for fails the step (the others did apply: the journal and a retry take it from
    there)."""
    result = await client.update_team(_app_id(step, app_id), admins=payload["admins"],
                                      moderators=payload["moderators"], remove=payload["collaboratorsToRemove"])
    return _all_confirmed({email: ok for answers in result.values() for email, ok in answers.items()},
                          "apply the team change of")


# -- app settings -------------------------------------------------------------------------------------------------


async def _map_settings(client: ManagementClient, step: Step, app_id: str | None,
                        payload: dict[str, Any]) -> dict[str, Any]:
    """Sets only the keys that changed; a key the service does not confirm fails the step."""
    result = await client.map_settings(_app_id(step, app_id), payload["settings"])
    return _all_confirmed({key: result.get(key, False) for key in payload["settings"]}, "set")


#: step kind (``Step.kind``, declared by its resource kind's ``steps``) -> the call that performs it
CALLS: dict[str, Call] = {
    "create_app": _create_app,
    "delete_app": _delete_app,
    "set_extensions": _set_extensions,
    "create_widget": _create_widget,
    "update_widget": _update_widget,
    "store_sms": _store_sms,
    "update_sms": _update_sms,
    "delete_sms": _delete_sms,
    "store_extension_settings": _store_extension_settings,
    "update_extension_settings": _update_extension_settings,
    "delete_extension_settings": _delete_extension_settings,
    "upload_certificate": _upload_certificate,
    "create_webhook": _create_webhook,
    "update_webhook": _update_webhook,
    "delete_webhook": _delete_webhook,
    "add_triggers": _add_triggers,
    "remove_triggers": _remove_triggers,
    "update_team": _update_team,
    "map_settings": _map_settings,
}

#: resource kind -> how to read one of its secrets back from the service; a kind whose secrets the service never
#: reports (a webhook's password) has no entry
SECRET_READS: dict[str, SecretRead] = {"sms": _sms_secret, "extension_settings": _extension_secret}


async def run_operation(client: ManagementClient, step: Step, app_id: str | None,
                   payload: dict[str, Any]) -> dict[str, Any]:
    """Perform ``step`` with a payload whose secrets are already resolved; returns ids the service assigned.

    ``app_id`` is the real id (for a new app, the one ``create_app`` returned earlier in this push).
    """
    return await CALLS[step.kind](client, step, app_id, payload)


async def read_secret(client: ManagementClient, kind: str, app_id: str, field: str) -> str | None:
    """The service's current value of the secret a plan names ``field`` (``sms.twilioAuthToken``,
    ``extension_settings.gifs-giphy.giphyApiKey``), held by resource kind ``kind`` (None: it does not say)."""
    read = SECRET_READS.get(kind)
    return None if read is None else await read(client, app_id, field)


__all__ = ["CALLS", "SECRET_READS", "StepFailed", "attach_files", "read_secret", "run_operation"]
