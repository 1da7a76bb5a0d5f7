"""Profiles and credentials: precedence, located errors, file permissions, insecure http, the local default."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tenantdeck.targets import (
    LOCAL,
    ProfileError,
    Target,
    check_base_url,
    is_loopback_host,
    resolve_target,
)

PROD_URL = "https://apimgmt.example.test"
STAGING_URL = "https://staging.example.test"
KEY = "prod-key-123456"
SECRET = "prod-secret-abcdef"


def write_profiles(env: dict[str, str], text: str) -> Path:
    directory = Path(env["TENANTDECK_CONFIG_DIR"])
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "profiles.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def write_credentials(path: Path, mode: int, key: str = "file-key-1234", secret: str = "file-secret-5678") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"key: {key}\nsecret: {secret}\n", encoding="utf-8")
    path.chmod(mode)
    return path


PROFILES = f"""\
profiles:
  prod:
    base_url: {PROD_URL}
  staging:
    base_url: {STAGING_URL}/
    credentials_file: staging.credentials
    max_rps: 5
  custom-env:
    base_url: {PROD_URL}
    key_env: ACME_KEY
    secret_env: ACME_SECRET
default: prod
"""


@pytest.fixture
def configured(isolated_env: dict[str, str]) -> dict[str, str]:
    write_profiles(isolated_env, PROFILES)
    write_credentials(Path(isolated_env["TENANTDECK_CONFIG_DIR"]) / "staging.credentials", 0o600)
    return {**isolated_env, "TENANTDECK_KEY": KEY, "TENANTDECK_SECRET": SECRET}


# --- the local default ----------------------------------------------------------------------------------------------


def test_nothing_configured_means_the_local_sandbox(isolated_env: dict[str, str]) -> None:
    target = resolve_target(env=isolated_env)
    assert target.name == LOCAL and target.is_local and target.in_process
    assert target.base_url == "http://sandbox.local"
    assert (Path(isolated_env["TENANTDECK_DATA_DIR"]) / "sandbox.sqlite3").exists()


async def _list(target: Target) -> list[str]:
    async with target.client() as client:
        return [app.name for app in await client.list_apps()]


@pytest.mark.anyio
async def test_local_target_really_serves_the_seeded_sandbox(isolated_env: dict[str, str]) -> None:
    names = await _list(resolve_target(env=isolated_env))
    assert names  # seeded


# --- precedence -----------------------------------------------------------------------------------------------------


def test_default_profile_is_used(configured: dict[str, str]) -> None:
    target = resolve_target(env=configured)
    assert (target.name, target.base_url, target.key, target.secret) == ("prod", PROD_URL, KEY, SECRET)
    assert target.credentials_source == "env TENANTDECK_KEY/TENANTDECK_SECRET"


def test_profile_flag_beats_default(configured: dict[str, str]) -> None:
    target = resolve_target(profile="staging", env=configured)
    assert (target.name, target.base_url) == ("staging", STAGING_URL)
    assert (target.key, target.secret) == ("file-key-1234", "file-secret-5678")
    assert target.max_rps == 5.0
    assert target.client().max_rps == 5.0


def test_profile_from_the_environment_beats_the_default_and_yields_to_the_flag(configured: dict[str, str]) -> None:
    """A CI job picks the stage's profile with TENANTDECK_PROFILE; an explicit --profile still wins (flag > env >
    profiles.yaml's default)."""
    env = {**configured, "TENANTDECK_PROFILE": "staging"}
    assert resolve_target(env=env).name == "staging"
    assert resolve_target(profile="prod", env=env).name == "prod"
    assert resolve_target(env={**env, "TENANTDECK_PROFILE": "local"}).is_local
    with pytest.raises(ProfileError, match="unknown profile 'nope'"):
        resolve_target(env={**env, "TENANTDECK_PROFILE": "nope"})


def test_ci_needs_no_file_on_disk(isolated_env: dict[str, str]) -> None:
    """URL, key and secret from the environment alone: no profiles.yaml, no credentials file."""
    env = {**isolated_env, "TENANTDECK_BASE_URL": PROD_URL, "TENANTDECK_KEY": KEY, "TENANTDECK_SECRET": SECRET}
    target = resolve_target(env=env)
    assert (target.base_url, target.key, target.secret) == (PROD_URL, KEY, SECRET)
    assert not (Path(isolated_env["TENANTDECK_CONFIG_DIR"]) / "profiles.yaml").exists()


def test_explicit_local_beats_default(configured: dict[str, str]) -> None:
    assert resolve_target(profile="local", env=configured).is_local


def test_env_base_url_beats_profile(configured: dict[str, str]) -> None:
    env = {**configured, "TENANTDECK_BASE_URL": "https://env.example.test"}
    target = resolve_target(profile="staging", env=env)
    assert target.base_url == "https://env.example.test" and target.key == KEY
    assert "overriding --profile staging" in target.source


def test_base_url_flag_beats_everything(configured: dict[str, str]) -> None:
    env = {**configured, "TENANTDECK_BASE_URL": "https://env.example.test"}
    target = resolve_target(profile="staging", base_url="https://flag.example.test/", env=env)
    assert target.base_url == "https://flag.example.test" and target.source.startswith("--base-url")


def test_base_url_alone_needs_env_credentials(isolated_env: dict[str, str]) -> None:
    with pytest.raises(ProfileError) as info:
        resolve_target(base_url=PROD_URL, env=isolated_env)
    assert str(info.value) == (
        "--base-url takes its credentials from the environment, but TENANTDECK_KEY and TENANTDECK_SECRET are not "
        "set; export TENANTDECK_KEY and TENANTDECK_SECRET"
    )


def test_custom_env_variable_names(configured: dict[str, str]) -> None:
    with pytest.raises(ProfileError, match="ACME_KEY and ACME_SECRET are not set"):
        resolve_target(profile="custom-env", env=configured)
    target = resolve_target(profile="custom-env", env={**configured, "ACME_KEY": "ak-1234", "ACME_SECRET": "as-1234"})
    assert (target.key, target.secret) == ("ak-1234", "as-1234")
    assert target.auth_hint == "check ACME_KEY and ACME_SECRET (profile 'custom-env')"


def test_unknown_profile(configured: dict[str, str], isolated_env: dict[str, str]) -> None:
    with pytest.raises(ProfileError, match=r"unknown profile 'nope' in .*profiles.yaml \(known: custom-env, local, "):
        resolve_target(profile="nope", env=configured)


def test_unknown_profile_without_a_profiles_file(isolated_env: dict[str, str]) -> None:
    with pytest.raises(ProfileError, match="does not exist \\(only the built-in 'local' is available\\)"):
        resolve_target(profile="prod", env=isolated_env)


# --- credentials files ----------------------------------------------------------------------------------------------


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_world_or_group_readable_credentials_are_refused(configured: dict[str, str], mode: int) -> None:
    path = Path(configured["TENANTDECK_CONFIG_DIR"]) / "staging.credentials"
    path.chmod(mode)
    with pytest.raises(ProfileError) as info:
        resolve_target(profile="staging", env=configured)
    text = str(info.value)
    assert text.endswith(f"refusing to use it. Fix: chmod 600 {path}")
    assert f"(mode {mode:04o})" in text
    assert "file-key" not in text and "file-secret" not in text


def test_credentials_file_with_tilde_and_bad_keys(isolated_env: dict[str, str], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    cred = tmp_path / "home" / ".td.credentials"
    cred.parent.mkdir()
    cred.write_text("key: k-1234\nsecret: s-1234\ntoken: oops-5678\n")
    cred.chmod(0o600)
    write_profiles(
        isolated_env, f"profiles:\n  p:\n    base_url: {PROD_URL}\n    credentials_file: ~/.td.credentials\n"
    )
    with pytest.raises(ProfileError) as info:
        resolve_target(profile="p", env=isolated_env)
    assert str(info.value) == f"{cred}:3:1: error: token: unknown key"
    assert "oops" not in str(info.value)


def test_missing_credentials_file(isolated_env: dict[str, str]) -> None:
    write_profiles(isolated_env, f"profiles:\n  p:\n    base_url: {PROD_URL}\n    credentials_file: /nonexistent/x\n")
    with pytest.raises(ProfileError, match="profile 'p': credentials file /nonexistent/x does not exist"):
        resolve_target(profile="p", env=isolated_env)


# --- profiles.yaml problems are located -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"profiles:\n  prod:\n    base_url: {PROD_URL}\n    bogus: 1\n",
         ":4:5: error: profiles.prod.bogus: unknown key"),
        ("profiles:\n  prod:\n    credentials: env\n", ":2:3: error: profiles.prod.base_url: Field required"),
        (f"profiles:\n  prod:\n    base_url: {PROD_URL}\n    credentials: vault\n",
         ":4:5: error: profiles.prod.credentials: Input should be 'env' or 'file'"),
        (f"profiles:\n  prod:\n    base_url: {PROD_URL}\n    credentials: file\n",
         ":2:3: error: profiles.prod: credentials: file needs credentials_file: PATH"),
        (f"profiles:\n  prod:\n    base_url: {PROD_URL}\ndefault: prd\n",
         ":4:1: error: default: no profile named 'prd' (known: local, prod)"),
        (f"profiles:\n  local:\n    base_url: {PROD_URL}\n",
         ":1:1: error: profiles: the profile name 'local' is reserved for the built-in sandbox"),
        ("profiles:\n  prod: [\n", ":3:1: error: the profiles file is not valid YAML"),
        ("- a\n- b\n", ":1:1: error: the profiles file must be a mapping"),
        (f"profiles:\n  prod:\n    base_url: {PROD_URL}\n    max_rps: -1\n",
         ":4:5: error: profiles.prod.max_rps: Input should be greater than 0"),
    ],
)
def test_profiles_file_problems_are_located(isolated_env: dict[str, str], text: str, expected: str) -> None:
    path = write_profiles(isolated_env, text)
    with pytest.raises(ProfileError) as info:
        resolve_target(env={**isolated_env, "TENANTDECK_KEY": KEY, "TENANTDECK_SECRET": SECRET})
    assert str(info.value).startswith(f"{path}{expected}")


def test_empty_profiles_file_means_local(isolated_env: dict[str, str]) -> None:
    write_profiles(isolated_env, "# nothing yet\n")
    assert resolve_target(env=isolated_env).is_local


# --- http refusal ---------------------------------------------------------------------------------------------------


def test_plain_http_to_a_remote_host_is_refused(configured: dict[str, str]) -> None:
    with pytest.raises(ProfileError) as info:
        resolve_target(base_url="http://apimgmt.example.test", env=configured)
    assert str(info.value) == (
        "--base-url: refusing to send the key and secret over plain http to apimgmt.example.test; "
        "use https:// or pass --insecure"
    )
    assert resolve_target(base_url="http://apimgmt.example.test", insecure=True, env=configured).base_url


def test_plain_http_in_a_profile_is_refused_with_its_location(isolated_env: dict[str, str]) -> None:
    path = write_profiles(isolated_env, "profiles:\n  p:\n    base_url: http://10.1.2.3:8080\n")
    env = {**isolated_env, "TENANTDECK_KEY": KEY, "TENANTDECK_SECRET": SECRET}
    with pytest.raises(ProfileError, match=f"{path}:3:5: error: profiles.p.base_url: refusing to send"):
        resolve_target(profile="p", env=env)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8765", "http://localhost:1", "http://[::1]:80/", "http://127.9.9.9"])
def test_loopback_http_is_allowed(url: str) -> None:
    assert check_base_url(url, insecure=False, origin="--base-url") == url.rstrip("/")


@pytest.mark.parametrize(
    ("url", "message"),
    [("ftp://x.example", r"must be an absolute http\(s\) URL"), ("apimgmt.example.test", "must be an absolute"),
     ("https://user:pw@x.example", "must not contain credentials")],
)
def test_bad_urls(url: str, message: str) -> None:
    with pytest.raises(ProfileError, match=message):
        check_base_url(url, insecure=False, origin="--base-url")


def test_is_loopback_host() -> None:
    assert is_loopback_host("localhost") and is_loopback_host("::1") and is_loopback_host("127.0.0.2")
    assert not is_loopback_host("example.com") and not is_loopback_host("10.0.0.1")


# --- secrets --------------------------------------------------------------------------------------------------------


def test_target_repr_hides_secrets(configured: dict[str, str]) -> None:
    for target in (resolve_target(env=configured), resolve_target(profile="staging", env=configured)):
        for text in (repr(target), str(target), target.describe(), repr(target.client())):
            assert target.key not in text and target.secret not in text
        assert "key=***" in repr(target)
