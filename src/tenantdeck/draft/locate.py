"""Key path -> line and column, from a node tree composed only when something has to be placed.

The builder in :mod:`tenantdeck.draft.yamlsource` keeps no positions (the happy path must not pay for them). When
validation finds problems, the text is composed once more by libyaml into PyYAML nodes, whose ``start_mark`` gives
every key and value a position. By then the text is known to be one document without aliases and at most
``MAX_DEPTH`` deep, so composing is safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from tenantdeck.draft.yamlsource import HAVE_LIBYAML
from tenantdeck.problems import PathPart


@dataclass(frozen=True, slots=True)
class Found:
    """Where a path lands.

    ``node`` is the value at the deepest part of the path that exists; ``key`` is the key node it was reached by
    (None for list items and the root); ``depth`` is how many parts of the path were found (``len(path)`` when the
    whole path exists).
    """

    node: Node
    key: ScalarNode | None
    depth: int


class Positions:
    """A composed node tree of a draft's text, answering "where is ``apps[3].widgets[0].main``?"."""

    def __init__(self, text: str) -> None:
        loader_cls = yaml.CSafeLoader if HAVE_LIBYAML else yaml.SafeLoader
        loader = loader_cls(text)
        try:
            self.root: Node | None = loader.get_single_node()
        except yaml.YAMLError:
            self.root = None
        finally:
            loader.dispose()

    def find(self, path: Sequence[PathPart]) -> Found | None:
        """The deepest node along ``path`` (a later duplicate key wins, as in the data)."""
        node = self.root
        if node is None:
            return None
        key: ScalarNode | None = None
        for depth, part in enumerate(path):
            child = _child(node, part)
            if child is None:
                return Found(node, key, depth)
            key, node = child
        return Found(node, key, len(path))

    def position(self, path: Sequence[PathPart], *, at_key: bool = False) -> tuple[int, int]:
        """1-based (line, column) of the value at ``path`` (or of its key), else of the nearest existing parent."""
        found = self.find(path)
        if found is None:
            return (1, 1)
        if found.depth < len(path):
            # the path does not exist (e.g. a missing key): point at the parent's key, or the parent itself
            target: Node = found.key if found.key is not None else found.node
        else:
            target = found.key if at_key and found.key is not None else found.node
        return (target.start_mark.line + 1, target.start_mark.column + 1)

    def key_occurrences(self, path: Sequence[PathPart]) -> list[tuple[int, int]]:
        """All (line, column) where the last key of ``path`` is written in its mapping (more than one: duplicates)."""
        if not path:
            return []
        found = self.find(path[:-1])
        if found is None or found.depth < len(path) - 1 or not isinstance(found.node, MappingNode):
            return []
        return [
            (k.start_mark.line + 1, k.start_mark.column + 1)
            for k, _ in found.node.value
            if isinstance(k, ScalarNode) and k.value == path[-1]
        ]

    def scalar(self, path: Sequence[PathPart]) -> ScalarNode | None:
        """The scalar node at exactly ``path``, or None."""
        found = self.find(path)
        if found is None or found.depth < len(path) or not isinstance(found.node, ScalarNode):
            return None
        return found.node


def _child(node: Node, part: PathPart) -> tuple[ScalarNode | None, Node] | None:
    if isinstance(node, MappingNode) and isinstance(part, str):
        hit: tuple[ScalarNode | None, Node] | None = None
        for k, v in node.value:
            if isinstance(k, ScalarNode) and k.value == part:
                hit = (k, v)  # keep looking: the last duplicate is the one in the data
        return hit
    if (
        isinstance(node, SequenceNode)
        and isinstance(part, int)
        and not isinstance(part, bool)
        and 0 <= part < len(node.value)
    ):
        return (None, node.value[part])
    return None
