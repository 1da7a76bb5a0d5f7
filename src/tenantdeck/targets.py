"""Where to connect and with which credentials: profiles, credential sources and :func:`resolve_target`.

Precedence (first match wins): ``--base-url`` > env ``TENANTDECK_BASE_URL`` > ``--profile`` > ``default`` in
``profiles.yaml`` > the built-in ``local`` profile (the embedded sandbox, in process). A base URL given on its own
takes its credentials from ``TENANTDECK_KEY``/``TENANTDECK_SECRET``.

``profiles.yaml`` lives in ``platformdirs.user_config_path("tenantdeck")`` (env ``TENANTDECK_CONFIG_DIR``
overrides it)::

    profiles:
      prod:
        base_url: https://apimgmt.cometchat.io
        credentials: env              # default; reads TENANTDECK_KEY / TENANTDECK_SECRET
        key_env: TENANTDECK_KEY       # optional overrides
        secret_env: TENANTDECK_SECRET
      staging:
        base_url: https://...
        credentials_file: ~/.config/tenantdeck/staging.credentials   # YAML key:/secret:, mode 0600
    default: prod

Credentials are never read from a draft, never printed, and a credentials file that group or others can read is
refused (with the ``chmod`` that fixes it). Plain ``http://`` is refused for non-loopback hosts unless the user
says ``--insecure``, because the key and secret travel in headers.

This is not part of :mod:`tenantdeck.api`: the ``local`` profile builds the FastAPI sandbox, and the client package
must not depend on the server it is tested against. Resolution depends on the client (``Target.client``), never the
reverse.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import httpx
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from tenantdeck.hosts import is_loopback_host
from tenantdeck.locations import ENV_CONFIG_DIR, ENV_DATA_DIR, config_dir, data_dir
from tenantdeck.models.secrets import ENV_KEY, ENV_SECRET  # the default credential variables (a draft never sends them)
from tenantdeck.problems import Problem, Severity

if TYPE_CHECKING:
    from tenantdeck.api.client import ManagementClient

LOCAL = "local"
LOCAL_BASE_URL = "http://sandbox.local"
ENV_BASE_URL = "TENANTDECK_BASE_URL"
#: the profile to use when no ``--profile`` is given (before profiles.yaml's ``default``): a CI job sets it per stage
ENV_PROFILE = "TENANTDECK_PROFILE"
PROFILES_FILE = "profiles.yaml"
SANDBOX_DB = "sandbox.sqlite3"
#: fault injection for the ``local`` sandbox (tests and demos of partial failures): fraction of requests failed
#: with 429/503, the seed that makes those failures repeatable, added latency, and the ``Retry-After`` it sends
ENV_SANDBOX_FAIL_RATE = "TENANTDECK_SANDBOX_FAIL_RATE"
ENV_SANDBOX_RNG_SEED = "TENANTDECK_SANDBOX_RNG_SEED"
ENV_SANDBOX_LATENCY_MS = "TENANTDECK_SANDBOX_LATENCY_MS"
ENV_SANDBOX_RETRY_AFTER = "TENANTDECK_SANDBOX_RETRY_AFTER"


class ProfileError(Exception):
    """A target cannot be resolved; ``str()`` is one line (with file:line when it comes from a file)."""

    def __init__(self, message: str, *, problem: Problem | None = None) -> None:
        self.problem = problem
        super().__init__(problem.render() if problem else message)


def _located(
    message: str, file: Path, line: int = 0, column: int = 0, path: tuple[str | int, ...] = ()
) -> ProfileError:
    return ProfileError(message, problem=Problem(Severity.ERROR, message, path, str(file), line, column))


# --- the profiles.yaml model ------------------------------------------------------------------------------------


class ProfileSpec(BaseModel):
    """One named profile."""

    model_config = ConfigDict(extra="forbid", strict=True)

    base_url: str
    credentials: Literal["env", "file"] | None = None
    key_env: str | None = Field(default=None, min_length=1)
    secret_env: str | None = Field(default=None, min_length=1)
    credentials_file: str | None = Field(default=None, min_length=1)
    max_rps: float | None = Field(default=None, gt=0)
    timeout: float | None = Field(default=None, gt=0)

    @field_validator("max_rps", "timeout", mode="before")
    @classmethod
    def _int_is_fine(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @model_validator(mode="after")
    def _one_credential_source(self) -> ProfileSpec:
        if self.credentials == "file" and not self.credentials_file:
            raise ValueError("credentials: file needs credentials_file: PATH")
        if self.credentials_file and self.credentials == "env":
            raise ValueError("credentials: env conflicts with credentials_file; keep one")
        if self.credentials_file and (self.key_env or self.secret_env):
            raise ValueError("key_env/secret_env apply to environment credentials, not to credentials_file")
        return self

    @property
    def uses_file(self) -> bool:
        return self.credentials_file is not None


class ProfilesFile(BaseModel):
    """The whole ``profiles.yaml``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    profiles: dict[str, ProfileSpec] = Field(default_factory=dict)
    default: str | None = None

    @field_validator("profiles")
    @classmethod
    def _local_is_reserved(cls, value: dict[str, ProfileSpec]) -> dict[str, ProfileSpec]:
        if LOCAL in value:
            raise ValueError(f"the profile name {LOCAL!r} is reserved for the built-in sandbox")
        return value

    @field_validator("default")
    @classmethod
    def _default_exists(cls, value: str | None, info: ValidationInfo) -> str | None:
        # A field validator (not a model validator) so the error is located at the `default:` line;
        # `profiles` is declared first, so it is already in info.data when valid.
        profiles = info.data.get("profiles")
        if value is not None and value != LOCAL and profiles is not None and value not in profiles:
            known = ", ".join(sorted([*profiles, LOCAL]))
            raise ValueError(f"no profile named {value!r} (known: {known})")
        return value


class CredentialsFile(BaseModel):
    """A credentials file: ``key:`` and ``secret:``, nothing else."""

    model_config = ConfigDict(extra="forbid", strict=True)

    key: str = Field(min_length=1)
    secret: str = Field(min_length=1)


# --- locations ----------------------------------------------------------------------------------------------------


def profiles_path(env: Mapping[str, str] | None = None) -> Path:
    return config_dir(env) / PROFILES_FILE


# --- YAML with positions ------------------------------------------------------------------------------------------


def _key_lines(text: str) -> dict[tuple[str | int, ...], tuple[int, int]]:
    """Key path -> (line, column), 1-based, for every mapping key in a YAML text."""
    out: dict[tuple[str | int, ...], tuple[int, int]] = {}
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return out

    def walk(node: yaml.Node, path: tuple[str | int, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = (*path, str(key_node.value))
                out[key] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                walk(value_node, key)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                out[(*path, i)] = (item.start_mark.line + 1, item.start_mark.column + 1)
                walk(item, (*path, i))

    if root is not None:
        walk(root, ())
    return out


def _load_yaml(path: Path, what: str) -> tuple[Any, str]:
    """The file's data and text, read through the draft's guarded reader (:mod:`tenantdeck.draft.configyaml`): an
    alias bomb, deep nesting or a huge file is one located :class:`ProfileError`, never a hang or a traceback."""
    from tenantdeck.draft.configyaml import ConfigFileError, read_file

    try:
        return read_file(path, what)
    except ConfigFileError as exc:
        p = exc.problem
        syntax = p.code.startswith("yaml-") and p.code != "yaml-duplicate-key"
        message = f"the {what} is not valid YAML: {p.message}" if syntax else p.message
        raise _located(message, path, p.line, p.column, p.path) from None


def _validation_problem(exc: ValidationError, path: Path, text: str, *, hide_input: bool = False) -> ProfileError:
    """The first pydantic error, placed at the nearest key we can find a line for."""
    err = exc.errors(include_url=False)[0]
    loc = tuple(err.get("loc", ()))
    positions = _key_lines(text)
    line = column = 0
    for n in range(len(loc), -1, -1):
        if loc[:n] in positions:
            line, column = positions[loc[:n]]
            break
    message = str(err.get("msg", "invalid value"))
    if err.get("type") == "extra_forbidden":
        message = "unknown key"
    elif message.startswith("Value error, "):
        message = message[len("Value error, "):]
    if not hide_input and err.get("type", "").endswith("_type"):
        message += f" (got {type(err.get('input')).__name__})"
    return _located(message, path, line, column, loc)


def load_profiles(path: Path) -> ProfilesFile:
    """Parse and validate ``profiles.yaml``; an empty file means no profiles."""
    data, text = _load_yaml(path, "profiles file")
    if data is None:
        return ProfilesFile()
    if not isinstance(data, dict):
        raise _located("the profiles file must be a mapping with 'profiles:' and 'default:'", path, 1, 1)
    try:
        return ProfilesFile.model_validate(data)
    except ValidationError as exc:
        raise _validation_problem(exc, path, text) from None


def load_credentials_file(path: Path, profile: str) -> CredentialsFile:
    """Read a ``key:``/``secret:`` YAML file, refusing it if group or others may read it."""
    from tenantdeck.safefile import kind_of

    if not path.exists():
        raise ProfileError(f"profile {profile!r}: credentials file {path} does not exist")
    if (reason := kind_of(path.stat().st_mode)) is not None:  # its mode bits would be a device's, not a file's
        raise ProfileError(f"profile {profile!r}: credentials file {path} {reason}")
    if os.name == "posix":
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise ProfileError(
                f"profile {profile!r}: credentials file {path} is accessible by group or others "
                f"(mode {mode:04o}); refusing to use it. Fix: chmod 600 {path}"
            )
    data, text = _load_yaml(path, "credentials file")
    if not isinstance(data, dict):
        raise _located("the credentials file must contain 'key:' and 'secret:'", path, 1, 1)
    try:
        return CredentialsFile.model_validate(data)
    except ValidationError as exc:
        raise _validation_problem(exc, path, text, hide_input=True) from None


# --- URLs -----------------------------------------------------------------------------------------------------------


def check_base_url(url: str, *, insecure: bool, origin: str) -> str:
    """Validate a base URL (https, or http to loopback/--insecure); returns it without a trailing slash."""
    text = url.strip()
    try:
        parsed = httpx.URL(text)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise ProfileError(f"{origin}: {text!r} is not a valid URL ({exc})") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ProfileError(f"{origin}: {text!r} must be an absolute http(s) URL such as https://apimgmt.cometchat.io")
    if parsed.userinfo:
        raise ProfileError(f"{origin}: the URL must not contain credentials; use a profile or TENANTDECK_KEY/SECRET")
    if parsed.scheme == "http" and not insecure and not is_loopback_host(parsed.host):
        raise ProfileError(
            f"{origin}: refusing to send the key and secret over plain http to {parsed.host}; "
            "use https:// or pass --insecure"
        )
    return text.rstrip("/")


# --- the resolved target ------------------------------------------------------------------------------------------


class Target:
    """Where and as whom to connect. ``repr()`` and ``str()`` never show the key or secret.

    ``transport`` is set for the in-process sandbox (``local``); otherwise httpx opens real connections.
    """

    __slots__ = ("auth_hint", "base_url", "credentials_source", "key", "max_rps", "name", "sandbox_account",
                 "sandbox_db", "secret", "source", "timeout", "transport")

    def __init__(
        self,
        name: str,
        base_url: str,
        key: str,
        secret: str,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        source: str = "",
        credentials_source: str = "",
        auth_hint: str | None = None,
        max_rps: float | None = None,
        timeout: float | None = None,
        sandbox_db: Path | None = None,
        sandbox_account: str | None = None,
    ) -> None:
        self.name = name
        self.sandbox_db = sandbox_db  #: the in-process sandbox's database file
        self.sandbox_account = sandbox_account  #: ... and the account id stored in it
        self.base_url = base_url
        self.key = key
        self.secret = secret
        self.transport = transport
        self.source = source
        self.credentials_source = credentials_source
        self.auth_hint = auth_hint
        self.max_rps = max_rps
        self.timeout = timeout

    def __repr__(self) -> str:
        kind = "in-process" if self.in_process else "network"
        return f"Target(name={self.name!r}, base_url={self.base_url!r}, key=***, secret=***, transport={kind})"

    __str__ = __repr__

    @property
    def in_process(self) -> bool:
        return self.transport is not None

    @property
    def is_local(self) -> bool:
        return self.name == LOCAL and self.in_process

    @property
    def credentials(self) -> frozenset[str]:
        """The key and the secret this target signs in with, as values, whatever variable or file they came from: a
        draft's ``${VAR}`` holding one is never sent (:func:`tenantdeck.sync.preflight.secret_value_problems`;
        trial J, J13)."""
        return frozenset(value for value in (self.key, self.secret) if value)

    def describe(self) -> str:
        """One line for humans: ``profile 'prod' (profiles.yaml) -> https://... ; credentials from env ...``."""
        where = "in-process sandbox" if self.in_process else self.base_url
        text = f"{self.name} ({self.source}) -> {where}" if self.source else f"{self.name} -> {where}"
        return text + (f"; credentials: {self.credentials_source}" if self.credentials_source else "")

    def identity(self) -> dict[str, str]:
        """The account this target is, as a draft's base records it (``tenantdeck.sync.workspace.binding``).

        The management API names no account (an app's ``owner`` shows only once the account has apps, and only
        after a request), so a service is its base URL plus a hash of the key (keys are issued per account): two
        accounts at one address differ, and the hash reveals nothing of the key. The in-process sandbox is the
        account id stored in its database (every sandbox is ``local`` at sandbox.local with the same key).
        """
        import hashlib

        if self.sandbox_account is not None:
            return {"base_url": self.base_url, "account": f"sandbox:{self.sandbox_account}"}
        digest = hashlib.sha256(self.key.encode("utf-8")).hexdigest()[:16]
        return {"base_url": self.base_url, "account": f"key-sha256:{digest}"}

    def fingerprint_key(self) -> bytes:
        """The HMAC key of secret fingerprints in a committed lock file: derived from the management secret, which
        whoever pushes has and the repository does not, so the fingerprints it holds reveal no secret value."""
        import hashlib
        import hmac

        label = f"tenantdeck fingerprint key v1|{self.base_url}".encode()
        return hmac.new(self.secret.encode("utf-8"), label, hashlib.sha256).digest()

    def plan_key(self) -> bytes:
        """The HMAC key of a saved plan's signature (:mod:`tenantdeck.sync.remote.planfile`): derived from the key
        and the secret this target signs in with, which ``plan`` (it reads the service) and ``push`` (it writes)
        hold and whoever can only write the plan file does not. Only the signature is ever written, never this
        key; an HMAC reveals nothing of its key, and the derivation is one-way too (trial L, L1)."""
        import hashlib
        import hmac
        import json

        material = json.dumps([self.key, self.secret], ensure_ascii=True).encode("ascii")
        return hmac.new(material, b"tenantdeck saved plan signature key v1", hashlib.sha256).digest()

    def client(self, **kwargs: Any) -> ManagementClient:
        """A :class:`ManagementClient` for this target; keyword arguments override the profile's settings."""
        from tenantdeck.api.client import ManagementClient

        return ManagementClient(self.base_url, self.key, self.secret, **self._client_kwargs(kwargs))

    def _client_kwargs(self, overrides: Mapping[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {"transport": self.transport, "auth_hint": self.auth_hint}
        if self.max_rps is not None:
            params["max_rps"] = self.max_rps
        if self.timeout is not None:
            params["timeout"] = self.timeout
        params.update({k: v for k, v in overrides.items() if v is not None or k == "transport"})
        return params


def _env_credentials(env: Mapping[str, str], key_env: str, secret_env: str, who: str) -> tuple[str, str]:
    missing = [name for name in (key_env, secret_env) if not env.get(name)]
    if missing:
        raise ProfileError(
            f"{who} takes its credentials from the environment, but {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not set; export {key_env} and {secret_env}"
        )
    return env[key_env], env[secret_env]


def local_target(env: Mapping[str, str] | None = None, *, db_path: Path | None = None) -> Target:
    """The built-in ``local`` profile: the embedded sandbox in process, its DB in the user data dir (or
    ``db_path``: the sandbox a draft's base records, e.g. the demo's)."""
    env = os.environ if env is None else env
    try:
        from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET
        from tenantdeck.sandbox.app import create_app
        from tenantdeck.sandbox.ddl import private_dir
    except ImportError as exc:
        raise ProfileError(f"the built-in {LOCAL!r} sandbox is not available in this installation ({exc})") from None
    directory = db_path.parent if db_path is not None else data_dir(env)
    try:
        private_dir(directory)  # 0700: the database holds webhook passwords
    except OSError as exc:
        raise ProfileError(f"cannot create the sandbox data directory {directory}: {exc.strerror or exc}") from None
    faults = sandbox_faults(env)
    db = db_path if db_path is not None else directory / SANDBOX_DB
    app = create_app(db, key=DEFAULT_KEY, secret=DEFAULT_SECRET, seed=True, **faults)
    shown = ", ".join(f"{k}={v}" for k, v in faults.items())
    return Target(
        LOCAL,
        LOCAL_BASE_URL,
        DEFAULT_KEY,
        DEFAULT_SECRET,
        httpx.ASGITransport(app=app, raise_app_exceptions=False),
        source=f"built-in sandbox, data in {db}" + (f"; faults: {shown}" if shown else ""),
        credentials_source="built-in sandbox credentials",
        sandbox_db=db.resolve(),
        sandbox_account=app.state.store.account_id(),
    )


def sandbox_faults(env: Mapping[str, str]) -> dict[str, Any]:
    """The ``local`` sandbox's fault injection from the environment (``TENANTDECK_SANDBOX_FAIL_RATE``,
    ``_RNG_SEED``, ``_LATENCY_MS``, ``_RETRY_AFTER``), as keyword arguments of ``create_app``.

    Why the environment: the TUI and every CLI command resolve ``local`` themselves, so a demo of a flaky service
    (or a test of a partial push) needs no flag on each of them. A bad value is a :class:`ProfileError`.
    """
    out: dict[str, Any] = {}
    for var, key, kind, low, high in ((ENV_SANDBOX_FAIL_RATE, "fail_rate", float, 0.0, 1.0),
                                      (ENV_SANDBOX_RNG_SEED, "rng_seed", int, None, None),
                                      (ENV_SANDBOX_LATENCY_MS, "latency_ms", int, 0, 60_000),
                                      (ENV_SANDBOX_RETRY_AFTER, "retry_after", int, 0, 3600)):
        text = env.get(var, "").strip()
        if not text:
            continue
        try:
            value = kind(text)
        except ValueError:
            raise ProfileError(f"{var}={text!r} is not {'a number' if kind is float else 'an integer'}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise ProfileError(f"{var}={text!r} must be between {low} and {high}")
        out[key] = value
    return out


def _url_target(url: str, origin: str, insecure: bool, env: Mapping[str, str], ignored_profile: str | None) -> Target:
    base = check_base_url(url, insecure=insecure, origin=origin)
    key, secret = _env_credentials(env, ENV_KEY, ENV_SECRET, origin)
    source = origin + (f", overriding --profile {ignored_profile}" if ignored_profile else "")
    return Target(
        "custom", base, key, secret,
        source=source,
        credentials_source=f"env {ENV_KEY}/{ENV_SECRET}",
        auth_hint=f"check {ENV_KEY} and {ENV_SECRET}",
    )


def _profile_base_url(name: str, spec: ProfileSpec, path: Path, insecure: bool) -> str:
    """The profile's base URL, checked; a refusal is placed at its FILE:LINE:COL in profiles.yaml (a CI job writes
    the file from its variables, and one left empty must say where it went)."""
    origin = f"{path}: profiles.{name}.base_url"
    try:
        return check_base_url(spec.base_url, insecure=insecure, origin=origin)
    except ProfileError as exc:
        where = ("profiles", name, "base_url")
        try:
            line, column = _key_lines(_load_yaml(path, "profiles file")[1]).get(where, (0, 0))
        except ProfileError:
            raise exc from None
        raise _located(str(exc).removeprefix(f"{origin}: "), path, line, column, where) from None


def _profile_target(name: str, spec: ProfileSpec, path: Path, insecure: bool, env: Mapping[str, str]) -> Target:
    base = _profile_base_url(name, spec, path, insecure)
    who = f"profile {name!r}"
    if spec.uses_file:
        assert spec.credentials_file is not None
        cred_path = Path(spec.credentials_file).expanduser()
        if not cred_path.is_absolute():
            cred_path = path.parent / cred_path
        creds = load_credentials_file(cred_path, name)
        key, secret = creds.key, creds.secret
        credentials_source = f"file {cred_path}"
        auth_hint = f"check the key and secret in {cred_path} ({who})"
    else:
        key_env, secret_env = spec.key_env or ENV_KEY, spec.secret_env or ENV_SECRET
        key, secret = _env_credentials(env, key_env, secret_env, who)
        credentials_source = f"env {key_env}/{secret_env}"
        auth_hint = f"check {key_env} and {secret_env} ({who})"
    return Target(
        name, base, key, secret,
        source=f"profile in {path}",
        credentials_source=credentials_source,
        auth_hint=auth_hint,
        max_rps=spec.max_rps,
        timeout=spec.timeout,
    )


def profile_names(env: Mapping[str, str] | None = None) -> list[str]:
    """Every profile a user can switch to: the built-in ``local``, then those of ``profiles.yaml`` (sorted).

    Raises :class:`ProfileError` for a broken profiles file (the caller shows it, located).
    """
    path = profiles_path(os.environ if env is None else env)
    config = load_profiles(path) if path.exists() else None
    return [LOCAL, *sorted(config.profiles if config else ())]


def resolve_target(
    profile: str | None = None,
    base_url: str | None = None,
    insecure: bool = False,
    env: Mapping[str, str] | None = None,
) -> Target:
    """Pick the target by the documented precedence (README "Profiles": a flag, then the environment, then
    profiles.yaml, then the built-in sandbox); raises :class:`ProfileError` (one line) when impossible."""
    env = os.environ if env is None else env
    if base_url:
        return _url_target(base_url, "--base-url", insecure, env, profile)
    if env.get(ENV_BASE_URL):
        return _url_target(env[ENV_BASE_URL], ENV_BASE_URL, insecure, env, profile)
    path = profiles_path(env)
    config = load_profiles(path) if path.exists() else None
    name = profile or env.get(ENV_PROFILE) or (config.default if config else None) or LOCAL
    if name == LOCAL:
        return local_target(env)
    if config is None:
        raise ProfileError(
            f"unknown profile {name!r}: {path} does not exist (only the built-in {LOCAL!r} is available)"
        )
    spec = config.profiles.get(name)
    if spec is None:
        known = ", ".join(sorted([*config.profiles, LOCAL]))
        raise ProfileError(f"unknown profile {name!r} in {path} (known: {known})")
    return _profile_target(name, spec, path, insecure, env)


__all__ = [
    "ENV_CONFIG_DIR",
    "ENV_DATA_DIR",
    "LOCAL",
    "ProfileError",
    "ProfileSpec",
    "ProfilesFile",
    "Target",
    "check_base_url",
    "config_dir",
    "data_dir",
    "is_loopback_host",
    "load_credentials_file",
    "load_profiles",
    "local_target",
    "profile_names",
    "profiles_path",
    "resolve_target",
    "sandbox_faults",
]
