"""The shared CLI options: one clear line and exit code 1 for every target or API failure."""

from __future__ import annotations

import click
from click.testing import CliRunner

from tenantdeck.api.errors import AuthError, Operation
from tenantdeck.cli.target_options import api_errors, pass_target
from tenantdeck.targets import Target


@click.command()
@pass_target
@click.option("--fail", is_flag=True)
def demo(target: Target, fail: bool) -> None:
    click.echo(f"{target.name} {target.base_url} max_rps={target.max_rps}")
    with api_errors():
        if fail:
            raise AuthError(Operation("list apps"), status=401, message="Invalid key or secret.")


def test_pass_target_resolves_and_applies_max_rps(isolated_env: dict[str, str]) -> None:
    env = {"TENANTDECK_KEY": "k-1234", "TENANTDECK_SECRET": "s-5678"}
    result = CliRunner().invoke(demo, ["--base-url", "https://x.example.test/", "--max-rps", "2.5"], env=env)
    assert result.exit_code == 0, result.output
    assert result.output == "custom https://x.example.test max_rps=2.5\n"


def test_target_problem_is_one_line_exit_1(isolated_env: dict[str, str]) -> None:
    result = CliRunner().invoke(demo, ["--profile", "nope"])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and result.output.startswith("Error: unknown profile 'nope'")


def test_api_error_is_one_line_exit_1(isolated_env: dict[str, str]) -> None:
    result = CliRunner().invoke(demo, ["--fail"])
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == (
        "Error: list apps failed: HTTP 401: Invalid key or secret. "
        "Hint: check TENANTDECK_KEY and TENANTDECK_SECRET, or the profile's credentials file"
    )


def test_max_rps_must_be_positive(isolated_env: dict[str, str]) -> None:
    result = CliRunner().invoke(demo, ["--max-rps", "0"])
    assert result.exit_code == 2 and "--max-rps" in result.output  # click usage error (main() maps it to 64)
