"""Issue 34 item 5: ``push --adopt-existing`` adopts the app's existing widgets and webhooks by name and never creates
a second one of what the app holds (the API has no widget delete: only the dashboard could remove it).

Through the real command: a second draft (as promoting into another account writes one) names an app the service
already holds, its widget without an id and its webhook under another id, both with the names the app holds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tests.loopback import serve_on_loopback
from tests.sync.helpers_push import KEY, SECRET, call, make_sandbox, run_pull

ENV = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000",
       "TENANTDECK_ACME_SUPPORT_ORDERS_PASSWORD": "s3cretpass1", "TENANTDECK_HOOK_PW": "s3cretpass1"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Any, str]]:
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    with serve_on_loopback(sandbox) as url:
        yield sandbox, url


def push(served: tuple[Any, str], tmp_path: Path, draft: Path, *args: str) -> Result:
    env = {"TENANTDECK_KEY": KEY, "TENANTDECK_SECRET": SECRET, "TENANTDECK_BASE_URL": "",
           "TENANTDECK_CONFIG_DIR": str(tmp_path / "config"), "TENANTDECK_DATA_DIR": str(tmp_path / "data"), **ENV}
    return CliRunner().invoke(cli, ["push", "--draft", str(draft), "--base-url", served[1], "--yes", *args],
                              env=env, catch_exceptions=False)


def acme(sandbox: Any) -> str:
    return str(next(a.id for a in call(sandbox, "list_apps") if a.name == "Acme Support"))


def second_draft(sandbox: Any, tmp_path: Path, edit: Any) -> Path:
    """The Acme app as another account's draft would hold it: no app id, no widget id, ``edit``ed."""
    pulled = tmp_path / "pulled" / "tenantdeck.yaml"
    pulled.parent.mkdir()
    run_pull(sandbox, pulled)
    data = yaml.safe_load(pulled.read_text())
    app = next(a for a in data["apps"] if a["name"] == "Acme Support")
    del app["id"]
    for widget in app["widgets"]:
        widget.pop("id", None)
    for hook in app["webhooks"]:
        hook.update({"useBasicAuth": True, "username": "ops", "password": "${TENANTDECK_HOOK_PW}"})
    edit(app)
    data["apps"] = [app]
    draft = tmp_path / "promoted" / "tenantdeck.yaml"
    draft.parent.mkdir()
    draft.write_text(yaml.safe_dump(data, sort_keys=False))
    return draft


def test_adopting_an_app_adopts_its_widget_by_name(served: tuple[Any, str], tmp_path: Path) -> None:
    sandbox = served[0]
    before = call(sandbox, "list_widgets", acme(sandbox))

    def restyle(app: dict[str, Any]) -> None:
        app["widgets"][0]["style"]["primary_color"] = "#112233"

    draft = second_draft(sandbox, tmp_path, restyle)
    result = push(served, tmp_path, draft, "--adopt-existing")
    assert result.exit_code == exitcodes.OK, result.output
    after = call(sandbox, "list_widgets", acme(sandbox))
    assert [w.widget_id for w in after] == [w.widget_id for w in before], "adopted, not created a second time"
    assert after[0].settings["style"]["primary_color"] == "#112233"  # the draft is pushed to the adopted widget
    widget = yaml.safe_load(draft.read_text())["apps"][0]["widgets"][0]
    assert widget["id"] == before[0].widget_id
    again = push(served, tmp_path, draft)
    assert again.exit_code == exitcodes.OK and "No changes" in again.output, again.output


def test_adopting_an_app_never_duplicates_a_webhook_of_the_same_name(served: tuple[Any, str],
                                                                     tmp_path: Path) -> None:
    sandbox = served[0]
    hooks = call(sandbox, "list_webhooks", acme(sandbox))
    assert hooks, "the seeded app holds a webhook"

    def rename_ids(app: dict[str, Any]) -> None:
        for hook in app["webhooks"]:
            hook["id"] = f"{hook['id']}copy"

    draft = second_draft(sandbox, tmp_path, rename_ids)
    result = push(served, tmp_path, draft, "--adopt-existing")
    after = call(sandbox, "list_webhooks", acme(sandbox))
    assert sorted(h["name"] for h in after) == sorted(h["name"] for h in hooks), "no second webhook of a name"
    assert result.exit_code != exitcodes.OK or "copy" not in str([h["id"] for h in after])
    assert hooks[0]["name"] in result.output  # it says which one it cannot adopt


def test_adopting_an_app_updates_its_webhooks_of_the_same_id(served: tuple[Any, str], tmp_path: Path) -> None:
    sandbox = served[0]
    hooks = call(sandbox, "list_webhooks", acme(sandbox))
    draft = second_draft(sandbox, tmp_path, lambda app: None)
    result = push(served, tmp_path, draft, "--adopt-existing")
    assert result.exit_code == exitcodes.OK, result.output
    assert [h["id"] for h in call(sandbox, "list_webhooks", acme(sandbox))] == [h["id"] for h in hooks]
    assert len(call(sandbox, "list_widgets", acme(sandbox))) == 1
