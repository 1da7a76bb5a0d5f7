"""The resource kinds are pure (data in, steps out) and the sync package has no import circle.

Why it matters: a kind that imports compare, plan or the I/O layers closes a circle through the registry (compare
and plan ask the kinds), and a circle makes every one of its modules load, and break, as one. The shared vocabulary
(:mod:`tenantdeck.sync.types`) is what lets a kind name a ``ResourceDiff`` or a ``Step`` without importing their
makers; the API call of each step lives in :mod:`tenantdeck.sync.remote.ops`.

Every import counts here: module level, inside functions and under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tenantdeck
import tenantdeck.sync.kinds

SRC = Path(tenantdeck.__file__).parent.parent
SYNC = SRC / "tenantdeck" / "sync"
KINDS_DIR = Path(tenantdeck.sync.kinds.__file__).parent

#: what a kind may not import, not even for annotations
FORBIDDEN_IN_KINDS = ("tenantdeck.api", "tenantdeck.targets", "tenantdeck.sync.remote", "tenantdeck.sync.workspace",
                      "tenantdeck.sync.compare", "tenantdeck.sync.plan", "tenantdeck.sync.settle",
                      "tenantdeck.sync.advance", "tenantdeck.sync.render", "os", "pathlib", "httpx", "asyncio")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _all_imports(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in it (``from a import b`` counts as ``a`` and ``a.b``)."""
    out: set[str] = set()
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return out


def _is_under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_kinds_import_neither_the_api_nor_compare_plan_or_the_io_layers() -> None:
    files = sorted(KINDS_DIR.glob("*.py"))
    assert len(files) >= 8
    for path in files:
        bad = sorted(n for n in _all_imports(path) if _is_under(n, FORBIDDEN_IN_KINDS))
        assert not bad, f"kinds/{path.name} imports {bad}"
        sync_deps = {n for n in _all_imports(path) if n.startswith("tenantdeck.sync")}
        allowed = ("tenantdeck.sync.types", "tenantdeck.sync.canonical", "tenantdeck.sync.kinds")
        assert all(_is_under(n, allowed) for n in sync_deps), f"kinds/{path.name} imports {sorted(sync_deps)}"


def test_the_vocabulary_and_the_normal_form_import_no_kind() -> None:
    """``types`` imports no sync module at all; ``canonical`` only ``types`` (the kinds import it, not back)."""
    types_deps = {n for n in _all_imports(SYNC / "types.py") if n.startswith("tenantdeck.sync")}
    assert not types_deps
    canonical_deps = {n for n in _all_imports(SYNC / "canonical.py") if n.startswith("tenantdeck.sync")}
    assert all(_is_under(n, ("tenantdeck.sync.types",)) for n in canonical_deps), canonical_deps


def test_every_step_kind_has_its_api_call() -> None:
    from tenantdeck.sync.kinds import BY_NAME, STEPS
    from tenantdeck.sync.remote.ops import CALLS, SECRET_READS

    assert set(CALLS) == set(STEPS)
    assert set(SECRET_READS) <= {name for name, k in BY_NAME.items() if k.secret_fields}


def test_kind_classes_do_not_shadow_the_names_of_textual_or_the_models() -> None:
    from tenantdeck.sync.kinds import KINDS

    for found in KINDS:
        assert type(found).__name__.endswith("Kind"), type(found).__name__


def test_no_import_circle_in_the_sync_package() -> None:
    """The whole package's check (``tests/test_layers.py``), said here for the package where the circle was."""
    from tests.test_layers import circles

    assert not [c for c in circles() if any(name.startswith("tenantdeck.sync") for name in c)]
