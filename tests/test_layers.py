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

Files are not the whole story: two packages can import each other with no circle of files (sync's push engine
imported the policies, whose checks imported sync's pull). So the packages have an order too (:data:`PACKAGES`),
and the sub-packages of one package no circle (:func:`subpackage_circles`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import tenantdeck

ROOT = Path(tenantdeck.__file__).parent

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("tenantdeck", "tenantdeck.exitcodes", "tenantdeck.problems", "tenantdeck.textsafe",
                    "tenantdeck.atomic", "tenantdeck.locations", "tenantdeck.hosts", "tenantdeck.jsonlimits",
                    "tenantdeck.gitignore", "tenantdeck.absent", "tenantdeck.gcpause", "tenantdeck.safefile",
                    "tenantdeck.console", "tenantdeck.tls")),
    ("models and api", ("tenantdeck.models", "tenantdeck.rules", "tenantdeck.sizelimits", "tenantdeck.api")),
    ("draft", ("tenantdeck.draft", "tenantdeck.prefs")),
    ("service side", ("tenantdeck.sandbox", "tenantdeck.receiver", "tenantdeck.events_send", "tenantdeck.preview")),
    ("sync", ("tenantdeck.sync", "tenantdeck.targets", "tenantdeck.policies")),
    ("ui", ("tenantdeck.cli", "tenantdeck.tui", "tenantdeck.launch", "tenantdeck.__main__")),
]


#: The packages (each top-level package or module of tenantdeck), lowest first: a package imports only packages
#: before it, so no two import each other, even where no two of their files do (a circle of files is
#: test_no_import_circle's; this is the order a reader climbs). The sync engine takes the policy gate as a
#: parameter, ``resolve_for_draft`` lives in ``sync.workspace.binding``, ``configyaml`` in ``draft``, and what
#: ``cli`` and ``launch`` share in ``console``, so that this holds.
PACKAGES: list[str] = [
    "tenantdeck", "tenantdeck.exitcodes", "tenantdeck.textsafe", "tenantdeck.problems", "tenantdeck.safefile",
    "tenantdeck.atomic", "tenantdeck.locations", "tenantdeck.hosts", "tenantdeck.jsonlimits", "tenantdeck.gitignore",
    "tenantdeck.absent", "tenantdeck.gcpause", "tenantdeck.console", "tenantdeck.tls",
    "tenantdeck.models", "tenantdeck.sizelimits", "tenantdeck.rules", "tenantdeck.api",
    "tenantdeck.draft", "tenantdeck.prefs",
    "tenantdeck.receiver", "tenantdeck.sandbox", "tenantdeck.events_send", "tenantdeck.preview",
    "tenantdeck.targets", "tenantdeck.sync", "tenantdeck.policies",
    "tenantdeck.tui", "tenantdeck.cli", "tenantdeck.launch", "tenantdeck.__main__",
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


def imported(name: str, path: Path, source: str) -> Iterator[str]:
    """Every tenantdeck module ``name`` (``source``, read from ``path``) imports, wherever the import statement is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
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


@functools.cache
def graph() -> dict[str, set[str]]:
    """Every module's tenantdeck imports, read on first use (not at import: every xdist worker imports this file to
    collect it, and only the ones running these tests need the ~0.7 s of parsing).

    Kept in the temporary folder under the hash of every source it was read from, so the workers that run this
    file's nine tests (four or five of the six, each parsing the whole tree: ~4 s of CPU a run) and the next runs
    on unchanged sources read it instead; a changed source (or this file) is another hash, so a kept graph is never
    stale."""
    sources = {name: path.read_text(encoding="utf-8") for name, path in sorted(MODULES.items())}
    digest = hashlib.sha256(Path(__file__).read_bytes() + json.dumps(sorted(MODULES)).encode())  # this reading too
    for text in sources.values():
        digest.update(hashlib.sha256(text.encode()).digest())
    kept = Path(tempfile.gettempdir()) / f"tenantdeck-test-layers-{digest.hexdigest()[:32]}.json"
    try:
        return {name: set(targets) for name, targets in json.loads(kept.read_text(encoding="utf-8")).items()}
    except (OSError, ValueError, AttributeError):
        pass
    built = {name: set(imported(name, path, sources[name])) for name, path in MODULES.items()}
    partial = kept.with_name(f"{kept.name}.{os.getpid()}")
    partial.write_text(json.dumps({name: sorted(targets) for name, targets in built.items()}), encoding="utf-8")
    os.replace(partial, kept)
    return built


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
    for start in sorted(graph()):
        if start in index:
            continue
        work = [(start, iter(sorted(graph()[start])))]
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
                    work.append((child, iter(sorted(graph()[child]))))
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
              for name, targets in sorted(graph().items()) for target in sorted(targets)
              if layer_of(target) > layer_of(name)]
    assert upward == []


def test_the_checks_see_what_they_check() -> None:
    """The reader finds imports in functions and under TYPE_CHECKING, and a circle when there is one."""
    assert "tenantdeck.tui.screens.app_screen" in graph()["tenantdeck.tui.navigation"]  # imported inside a function
    assert "tenantdeck.tui.editor" in graph()["tenantdeck.tui.host"]  # imported under TYPE_CHECKING
    saved = set(graph()["tenantdeck.problems"])
    try:
        graph()["tenantdeck.problems"].add("tenantdeck.textsafe")
        graph()["tenantdeck.textsafe"].add("tenantdeck.problems")
        assert ["tenantdeck.problems", "tenantdeck.textsafe"] in circles()
    finally:
        graph()["tenantdeck.problems"] = saved
        graph()["tenantdeck.textsafe"].discard("tenantdeck.problems")


def package_of(name: str) -> str:
    """The top-level package (or module) of ``name``: ``tenantdeck.sync.remote.engine`` -> ``tenantdeck.sync``."""
    return ".".join(name.split(".")[:2])


def upward_package_imports(graph: dict[str, set[str]]) -> list[str]:
    """Each import from a package to one at or after it in :data:`PACKAGES`, as ``file -> file (package ->
    package)``: the first file-level import of every package-level edge that breaks the order."""
    rank = {name: i for i, name in enumerate(PACKAGES)}
    found: dict[tuple[str, str], str] = {}
    for name, targets in sorted(graph.items()):
        for target in sorted(targets):
            src, dst = package_of(name), package_of(target)
            if src != dst and rank[dst] > rank[src]:
                found.setdefault((src, dst), f"{name} -> {target} ({src} imports {dst}, which comes after it)")
    return sorted(found.values())


def test_every_package_has_a_place() -> None:
    missing = sorted({package_of(name) for name in MODULES} - set(PACKAGES))
    assert missing == [], f"add these to PACKAGES in tests/test_layers.py, below what they import: {missing}"
    assert len(PACKAGES) == len(set(PACKAGES))


def test_packages_import_only_the_packages_below_them() -> None:
    """No package imports a package that imports it: the package-level graph follows :data:`PACKAGES`."""
    assert upward_package_imports(graph()) == []


def test_the_package_check_sees_a_package_circle() -> None:
    """A file of sync importing a file of policies (which imports sync) is found, though no file circle exists."""
    edges = {name: set(targets) for name, targets in graph().items()}
    edges["tenantdeck.sync.remote.engine"].add("tenantdeck.policies.checks")
    assert upward_package_imports(edges) == [
        "tenantdeck.sync.remote.engine -> tenantdeck.policies.checks (tenantdeck.sync imports tenantdeck.policies, "
        "which comes after it)"]


def subpackage_of(name: str) -> str:
    """The sub-package ``name`` is in, one level below its top-level package (``tenantdeck.sync.remote``), or its
    top-level package for a module directly in it."""
    parts = name.split(".")
    candidate = ".".join(parts[:3])
    return candidate if len(parts) > 3 or MODULES.get(candidate, ROOT).name == "__init__.py" else package_of(name)


def subpackage_circles() -> list[list[str]]:
    """Sub-packages of one package that import each other (``sync.workspace`` <-> ``sync.remote``), by a
    transitive closure of the small sub-package graph."""
    edges: dict[str, set[str]] = {}
    for name, targets in graph().items():
        for target in targets:
            a, b = subpackage_of(name), subpackage_of(target)
            if a != b and package_of(a) == package_of(b) and a.count(".") == b.count(".") == 2:
                edges.setdefault(a, set()).add(b)
    reach = {a: set(bs) for a, bs in edges.items()}
    changed = True
    while changed:
        changed = False
        for a in reach:
            more = set().union(*(reach.get(b, set()) for b in reach[a])) - reach[a]
            if more:
                reach[a] |= more
                changed = True
    groups = {tuple(sorted({a} | {b for b in reach[a] if a in reach.get(b, set())})) for a in reach if a in reach[a]}
    return sorted(list(g) for g in groups)


def test_no_circle_between_subpackages() -> None:
    """No two sub-packages of one package import each other. The last circle (the App screen's tabs opened the
    confirm dialog in ``tui.screens`` and heard ``WidgetSwitched`` from ``app_screen``, while the App screen holds
    the tabs) went when both moved below both: ``tui.widgets.confirm`` and ``tui.messages``."""
    assert subpackage_circles() == []


def test_the_subpackage_check_sees_a_circle() -> None:
    """A tab importing a screen again (as the preview imported ``app_screen``) is found as a circle."""
    saved = set(graph()["tenantdeck.tui.tabs.widget_preview"])
    try:
        graph()["tenantdeck.tui.tabs.widget_preview"].add("tenantdeck.tui.screens.app_screen")
        assert subpackage_circles() == [["tenantdeck.tui.screens", "tenantdeck.tui.tabs"]]
    finally:
        graph()["tenantdeck.tui.tabs.widget_preview"] = saved
