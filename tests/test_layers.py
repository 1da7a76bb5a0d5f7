"""The package's layers, read from its own imports: no import circle, and no import from a lower layer to a higher
one. Every import counts — at module level, inside a function, and under ``if TYPE_CHECKING:`` — because each is a
dependency a reader must follow and a change must respect, whenever Python happens to run it.

The layers, lowest first (a module may import its own layer and those below it; within a layer, the circle check
keeps the order honest):

- foundation: exit codes, located problems, terminal-safe text, atomic writes, safe reads, where files live;
- models and api: what the service's data is (pydantic models, the catalog, cross-object rules) and how to talk to
  it (the httpx client);
- draft: YAML text to data and back, the editor's session, config files read with the draft's guarded loader;
- service side: the embedded sandbox, the webhook receiver, test deliveries;
- sync: compare, plan, push, pull, the workspace, the targets (profiles) they run against, and the fleet policies
  checked before a push and against the live account;
- ui: the CLI, the TUI, the console script.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import tenantdeck

ROOT = Path(tenantdeck.__file__).parent

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("tenantdeck", "tenantdeck.exitcodes", "tenantdeck.problems", "tenantdeck.textsafe",
                    "tenantdeck.atomic", "tenantdeck.locations", "tenantdeck.hosts", "tenantdeck.jsonlimits",
                    "tenantdeck.gitignore", "tenantdeck.absent", "tenantdeck.gcpause", "tenantdeck.safefile")),
    ("models and api", ("tenantdeck.models", "tenantdeck.rules", "tenantdeck.sizelimits", "tenantdeck.api")),
    ("draft", ("tenantdeck.draft", "tenantdeck.configyaml", "tenantdeck.prefs")),
    ("service side", ("tenantdeck.sandbox", "tenantdeck.receiver", "tenantdeck.events_send", "tenantdeck.preview")),
    ("sync", ("tenantdeck.sync", "tenantdeck.targets", "tenantdeck.policies")),
    ("ui", ("tenantdeck.cli", "tenantdeck.tui", "tenantdeck.launch", "tenantdeck.__main__")),
]


def modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = modules()


def imported(name: str, path: Path) -> Iterator[str]:
    """Every tenantdeck module ``name`` imports, wherever the import statement is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


GRAPH = {name: set(imported(name, path)) for name, path in MODULES.items()}


def layer_of(name: str) -> int:
    best = (-1, -1)  # (length of the matching prefix, layer): the most specific entry wins
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if name == prefix or name.startswith(prefix + "."):
                best = max(best, (len(prefix), rank))
    assert best[1] >= 0, f"{name} belongs to no layer: add it to LAYERS in tests/test_layers.py"
    return best[1]


def circles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(GRAPH):
        if start in index:
            continue
        work = [(start, iter(sorted(GRAPH[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(GRAPH[child]))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_every_module_has_a_layer() -> None:
    for name in MODULES:
        layer_of(name)


def test_no_import_circle() -> None:
    assert circles() == []


def test_no_import_from_a_lower_layer_to_a_higher_one() -> None:
    upward = [f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
              for name, targets in sorted(GRAPH.items()) for target in sorted(targets)
              if layer_of(target) > layer_of(name)]
    assert upward == []


def test_the_checks_see_what_they_check() -> None:
    """The reader finds imports in functions and under TYPE_CHECKING, and a circle when there is one."""
    assert "tenantdeck.tui.screens.app_screen" in GRAPH["tenantdeck.tui.navigation"]  # imported inside a function
    assert "tenantdeck.tui.editor" in GRAPH["tenantdeck.tui.host"]  # imported under TYPE_CHECKING
    saved = set(GRAPH["tenantdeck.problems"])
    try:
        GRAPH["tenantdeck.problems"].add("tenantdeck.textsafe")
        GRAPH["tenantdeck.textsafe"].add("tenantdeck.problems")
        assert ["tenantdeck.problems", "tenantdeck.textsafe"] in circles()
    finally:
        GRAPH["tenantdeck.problems"] = saved
        GRAPH["tenantdeck.textsafe"].discard("tenantdeck.problems")
