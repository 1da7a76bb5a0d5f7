"""The sync package's layout is a promise: modules directly in ``tenantdeck.sync`` are pure (no file, no network);
local I/O lives in ``tenantdeck.sync.workspace``, calls to the service in ``tenantdeck.sync.remote``."""

from __future__ import annotations

import ast
from pathlib import Path

import tenantdeck.sync

#: what a pure module may not import (outside ``if TYPE_CHECKING:``): files, processes, the network, the I/O layers
IMPURE = ("os", "pathlib", "shutil", "subprocess", "socket", "httpx", "asyncio", "tenantdeck.api.client",
          "tenantdeck.api.transport", "tenantdeck.api.resources",
          "tenantdeck.atomic", "tenantdeck.draft.save", "tenantdeck.sync.workspace", "tenantdeck.sync.remote",
          "tenantdeck.targets")


def _runtime_imports(tree: ast.AST) -> list[str]:
    """Modules imported anywhere in ``tree`` except under ``if TYPE_CHECKING:`` (annotations only)."""
    out: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.extend([node.module] + [f"{node.module}.{alias.name}" for alias in node.names])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def test_modules_directly_in_sync_do_no_io() -> None:
    root = Path(tenantdeck.sync.__file__).parent
    pure = sorted(p for p in root.glob("*.py"))
    assert len(pure) > 5
    for path in pure:
        for name in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            assert not any(name == bad or name.startswith(bad + ".") for bad in IMPURE), f"{path.name} imports {name}"


def test_io_lives_in_the_two_io_packages() -> None:
    root = Path(tenantdeck.sync.__file__).parent
    assert (root / "workspace" / "state.py").is_file() and (root / "remote" / "push.py").is_file()


def test_the_plan_asks_each_kind_for_its_steps() -> None:
    """Adding a kind is one module and one registry entry: the generic plan names no resource kind's step; only
    the app's own create and delete (which every kind's steps depend on) are planned there."""
    from tenantdeck.sync.kinds import KINDS, STEPS
    from tenantdeck.sync.kinds.base import Kind

    source = (Path(tenantdeck.sync.__file__).parent / "plan.py").read_text(encoding="utf-8")
    strings = {n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert strings & set(STEPS) == {"create_app", "delete_app"}
    assert not strings & {k.name for k in KINDS} - {"app"}
    for found in KINDS:
        if found.steps and found.name != "app":
            assert type(found).plan is not Kind.plan, f"{found.name} plans no steps of its own"
