"""The core never imports Textual: proved in a fresh interpreter, as Harlequin does.

Also keeps the fast path honest: `tenantdeck validate` must not pay for httpx, FastAPI or ruamel on import.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CORE_MODULES = [
    "tenantdeck.models",
    "tenantdeck.rules",
    "tenantdeck.problems",
    "tenantdeck.draft",
    "tenantdeck.draft.session",
    "tenantdeck.draft.splice",
    "tenantdeck.api.client",
    "tenantdeck.targets",
    "tenantdeck.sandbox.app",
    "tenantdeck.models.events",
    "tenantdeck.models.messages",
    "tenantdeck.models.event_samples",
    "tenantdeck.receiver",
    "tenantdeck.sandbox.messaging.api",
    "tenantdeck.cli.listen_cmd",
    "tenantdeck.preview.server",
    "tenantdeck.cli.preview_cmd",
    "tenantdeck.sync.canonical",
    "tenantdeck.sync.compare",
    "tenantdeck.sync.plan",
    "tenantdeck.sync.remote.push",
    "tenantdeck.sync.remote.engine",
    "tenantdeck.sync.settle",
    "tenantdeck.sync.advance",
    "tenantdeck.sync.review",
    "tenantdeck.sync.pull_preview",
    "tenantdeck.sync.progress",
    "tenantdeck.sync.preflight",
    "tenantdeck.sync.workspace.offline",
    "tenantdeck.draft.session",
]


def loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_no_core_module_imports_textual() -> None:
    """Every core module imported in turn in one fresh interpreter, the loaded modules looked at after each: the
    first one after which Textual is loaded is the one that imports it (one process, not one per module: 30 of
    them were ~7 s of the suite's CPU, for the same answer)."""
    out = subprocess.run(
        [sys.executable, "-c", "import importlib, json, sys\n"
                               f"for name in {CORE_MODULES!r}:\n"
                               "    importlib.import_module(name)\n"
                               "    if 'textual' in sys.modules:\n"
                               "        print(json.dumps(name)); break\n"
                               "else:\n"
                               "    print(json.dumps(None))"],
        capture_output=True, text=True, check=True,
    )
    first = json.loads(out.stdout.strip().splitlines()[-1])
    assert first is None, f"importing {first} loads Textual"


def test_validate_command_loads_neither_textual_nor_network_stack() -> None:
    modules = loaded_after(
        "from tenantdeck.cli import cli\nimport tenantdeck.cli.validate_cmd\nimport tenantdeck.draft.load"
    )
    for heavy in ("textual", "httpx", "fastapi", "uvicorn", "ruamel"):
        assert heavy not in modules, f"validate imports {heavy}"


def test_models_package_and_an_unvalidated_session_load_no_pydantic() -> None:
    """A UI paints the parsed draft first; pydantic (about 0.1 s of imports) waits for the worker that validates."""
    modules = loaded_after(
        "import tenantdeck.models\nfrom tenantdeck.models import catalog\nimport tenantdeck.draft.session"
    )
    assert "pydantic" not in modules


def test_the_client_package_never_imports_the_sandbox() -> None:
    """Target resolution (which builds the in-process sandbox) lives in tenantdeck.targets, outside the client."""
    modules = loaded_after("import tenantdeck.api\nimport tenantdeck.api.client")
    assert not any(m == "tenantdeck.sandbox" or m.startswith(("tenantdeck.sandbox.", "fastapi")) for m in modules)
    assert "tenantdeck.targets" not in modules


def test_the_policies_engine_takes_the_cel_library_without_its_repl() -> None:
    """``import cel`` loads the package's REPL (typer, prompt_toolkit, pygments: 128 ms of a 420 ms ``validate`` with
    one CEL rule); tenantdeck.policies.cellib leaves it out, and a later explicit ``import cel.cli`` still gets the
    real one. A CEL rule is compiled and evaluated, so the library is really in use."""
    modules = loaded_after(
        "from tenantdeck.policies.model import load_policies\n"
        "from tenantdeck.policies.cellib import cel\n"
        "assert cel.evaluate('1 + 2') == 3\n"
        "import tenantdeck.policies.evaluator, tenantdeck.policies.celcost, tenantdeck.policies.patterns"
    )
    assert "cel" in modules
    assert not {"cel.cli", "prompt_toolkit", "typer", "pygments"} & modules
    assert {"cel.cli", "prompt_toolkit"} <= loaded_after("import tenantdeck.policies.cellib\nimport cel.cli\n"
                                                         "assert hasattr(cel.cli, 'app')")


def test_the_editors_first_frame_imports_no_screen_it_does_not_show(tmp_path: Path) -> None:
    """The footer of the first frame lists F6, whose ``check_action`` asked whether the review screen was on top by
    importing it (the sync engine's plan rendering and the pydantic models behind it): 0.12 s of the 0.21 s from the
    app's start to its first frame, and the start-up ratio over a bare Textual app went from 1.65x to 2.4x
    (bench/tui_startup.py). In a fresh interpreter, up to the first frame written to a terminal, neither that screen
    nor the models are imported."""
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text("format: 1\napps:\n  - name: Acme\n    region: eu\n", encoding="utf-8")
    code = f"""
import asyncio, json, os, sys
from pathlib import Path
os.environ["TENANTDECK_CONFIG_DIR"] = {str(tmp_path / "config")!r}
os.environ["TENANTDECK_DATA_DIR"] = {str(tmp_path / "data")!r}
import textual.app
from textual.drivers.headless_driver import HeadlessDriver
from tenantdeck.tui.app import TenantdeckApp
seen = []
shown = textual.app.App._display
def display(self, screen, update):
    if update is not None and not seen:
        seen.append(sorted(m for m in sys.modules if m.startswith(("tenantdeck.", "pydantic"))))
    return shown(self, screen, update)
textual.app.App._display = display
class Terminal(HeadlessDriver):
    @property
    def is_headless(self): return False
    def write(self, data): pass
app = TenantdeckApp(Path({str(draft)!r}))
app.driver_class = Terminal
async def main():
    async with app.run_test(headless=False, size=(100, 30)):
        for _ in range(500):
            if seen: break
            await asyncio.sleep(0.01)
asyncio.run(main())
print(json.dumps(seen[0]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    modules = set(json.loads(out.stdout.strip().splitlines()[-1]))  # as the first frame was written
    assert "tenantdeck.tui.app" in modules
    assert not {"tenantdeck.tui.screens.review_screen", "tenantdeck.sync.render", "tenantdeck.sync.kinds"} & modules
