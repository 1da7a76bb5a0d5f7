"""Secrets in drafts are written as ``${ENV_VAR}`` references, never as values.

The draft is meant to live in git. A literal secret in it is accepted (with a warning) because an admin may be
mid-edit, but the tool itself never writes one. References are resolved only when a value is really needed (push);
comparison with what was pushed before goes through a keyed fingerprint (:func:`fingerprint`), never the value.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated

from pydantic import AfterValidator, StringConstraints
from pydantic_core import PydanticCustomError

if TYPE_CHECKING:
    from pydantic import BaseModel

REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: the variables tenantdeck signs in to the service with by default (a profile may name others: ``key_env``,
#: ``secret_env``); a draft's ``${VAR}`` never names them: a webhook password of ``${TENANTDECK_SECRET}`` pointed at
#: another host sent the account's management secret there on every event (trial J, J13)
ENV_KEY = "TENANTDECK_KEY"
ENV_SECRET = "TENANTDECK_SECRET"
CREDENTIAL_VARS = frozenset({ENV_KEY, ENV_SECRET})
_LOOKS_LIKE_REFERENCE = re.compile(r"\$\{.*\}?|\$[A-Za-z_]")


#: a key name that says its value is a secret (``relayPassword``, ``legacyWebhookSecret``, ``clientApiKey``,
#: ``apiToken``, ``privateKey``, ``credentials``): a key the catalog does not know is treated as one when its name
#: says so, because the service reports secrets in clear and an unknown one must not reach the base, a committed
#: lock file or a journal. ``keyId``, ``useWebhookBasicAuth`` and the like do not match.
_SECRET_NAME = re.compile(r"(secret|passw(or)?d|passphrase|token|api_?key|private_?key|credential)", re.IGNORECASE)


def names_a_secret(key: str) -> bool:
    """Whether a key's name says its value is a secret (:data:`_SECRET_NAME`)."""
    return _SECRET_NAME.search(key.replace("-", "_")) is not None


def reference_name(value: str) -> str | None:
    """The variable name if ``value`` is exactly ``${NAME}``, else None."""
    m = REFERENCE.fullmatch(value)
    return m.group(1) if m else None


def is_reference(value: str | None) -> bool:
    return value is not None and REFERENCE.fullmatch(value) is not None


def check_secret(value: str) -> str:
    if is_reference(value):
        return value
    if value.startswith("$") and _LOOKS_LIKE_REFERENCE.match(value):
        raise PydanticCustomError(
            "secret_reference", "looks like a broken environment reference; write it as ${NAME}", {}
        )
    return value


#: A secret: a ``${ENV_VAR}`` reference in a draft, or a plain value in an API body.
SecretValue = Annotated[str, StringConstraints(min_length=1), AfterValidator(check_secret)]


class Secret:
    """The mark of a model field that holds a secret: ``password: Annotated[Password | None, Secret("PASSWORD")]``.

    This is the one place a field is declared secret. Everything else asks :func:`secret_fields`: which fields are
    fingerprinted instead of compared, sent as placeholders in a plan, warned about when written literally, scrubbed
    from the sandbox's error messages, never quoted in a problem. ``env_name`` ends the name of the ``${VAR}``
    reference tenantdeck derives for it (``TENANTDECK_<APP>_..._PASSWORD``: pull, and the forms that suggest one).
    pydantic ignores the mark (it is not a constraint), so it changes neither validation nor the JSON Schema.
    """

    __slots__ = ("env_name",)

    def __init__(self, env_name: str) -> None:
        self.env_name = env_name

    def __repr__(self) -> str:
        return f"Secret({self.env_name!r})"


@functools.cache
def secret_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``model`` marked :class:`Secret`, in declaration order (asked for every webhook and SMS block
    of every app the rules check: 30,000 times in a bulk edit of 5,000 apps, so worked out once per model)."""
    return tuple(name for name, info in model.model_fields.items()
                 if any(isinstance(meta, Secret) for meta in info.metadata))


def secret_env_name(model: type[BaseModel], field: str) -> str:
    """The last part of the reference name derived for ``model.field`` (its :class:`Secret` mark's ``env_name``)."""
    mark = next((m for m in model.model_fields[field].metadata if isinstance(m, Secret)), None)
    if mark is None:
        raise KeyError(f"{model.__name__}.{field} is not marked secret")
    return mark.env_name


_NOT_ALNUM = re.compile(r"[^A-Z0-9]+")


def env_token(text: str) -> str:
    """``"Acme Inc."`` -> ``"ACME_INC"``: uppercase, every run of non-alphanumerics one ``_``."""
    return _NOT_ALNUM.sub("_", text.upper()).strip("_") or "X"


def derived_secret_name(app_name: str, *parts: str) -> str:
    """``TENANTDECK_<APPNAME>_<PARTS...>``, e.g. ``TENANTDECK_ACME_HOOK1_PASSWORD``: the variable a secret's
    ``${VAR}`` reference gets when nobody named one. Beside the :class:`Secret` marks it derives from, so pull and
    the draft's SMS and webhook forms (which suggest the same name) share it without the draft layer reaching up
    into sync."""
    return "_".join(["TENANTDECK", env_token(app_name), *(env_token(p) for p in parts)])


class MissingSecret(LookupError):
    """A referenced environment variable is not set at the moment its value is needed."""

    def __init__(self, variable: str) -> None:
        super().__init__(f"environment variable {variable} is not set")
        self.variable = variable


def resolve(value: str, env: Mapping[str, str] | None = None) -> str:
    """The real secret behind ``value``: the environment variable for a reference, else the literal itself."""
    name = reference_name(value)
    if name is None:
        return value
    source = os.environ if env is None else env
    if name not in source:
        raise MissingSecret(name)
    return source[name]


def fingerprint(secret: str | bytes, key: bytes) -> str:
    """A keyed, one-way fingerprint of a secret value (or a file's content: a push certificate), safe to store in
    the base snapshot.

    HMAC with a per-workspace random key: equal secrets compare equal, but the stored string reveals nothing and
    cannot be brute-forced offline without the key (which never leaves the local machine).
    """
    data = secret.encode("utf-8") if isinstance(secret, str) else secret
    return "hmac-sha256:" + hmac.new(key, data, hashlib.sha256).hexdigest()[:32]


def mask(value: str | None) -> str:
    """How a secret is shown anywhere a human may read it."""
    if value is None:
        return "(none)"
    name = reference_name(value)
    return f"${{{name}}}" if name else "********"


#: the keys of a secret's state as a base snapshot records it (:func:`is_secret_state`)
SECRET_STATE_KEYS = frozenset({"fingerprint", "ref", "unknown", "unreadable"})


def is_secret_state(value: object) -> bool:
    """A secret's (or a certificate file's) state, one leaf: its fingerprint, an unset ``${VAR}`` (``ref``), a value
    the service does not report (``unknown``), or a file that cannot be read (``unreadable``). Here, in the models,
    so that the draft's forms (which may not import the sync engine) tell such a state from a value too."""
    return isinstance(value, Mapping) and not SECRET_STATE_KEYS.isdisjoint(value)
