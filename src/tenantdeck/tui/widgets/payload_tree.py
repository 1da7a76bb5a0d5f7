"""A delivery's payload as a ``Tree``, each validation problem shown on the node it is about.

The receiver's problems are ``"data.message.sentAt: is required"`` strings (``problems.format_path`` paths, as
:func:`tenantdeck.models.events.check_delivery` writes them). :func:`locate` maps each to the deepest node of the
payload that exists: the node itself, or its parent plus a "missing" child when the key is not there at all, or
the root when the problem is about the whole body. A problem is never dropped: one that names no node is on the root.

Every key, value and message drawn is the sender's: labels are ``Text`` (never markup) of :func:`shown` strings.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tenantdeck.problems import PathPart, parse_path
from tenantdeck.receiver import Delivery
from tenantdeck.textsafe import shown

#: A payload path as ``format_path`` writes it (``data.entities.on[0].uid``)
_PATH = re.compile(r"^[A-Za-z_$][\w$-]*(\[\d+\])*(\.[A-Za-z_$][\w$-]*(\[\d+\])*)*$")
#: Nodes drawn at most (a 1 MB payload must not make a million tree nodes); the rest are summarised
MAX_NODES = 3000
#: Longest scalar shown on a node
MAX_VALUE = 120


@dataclass(frozen=True, slots=True)
class Located:
    """One problem: the existing node it is on (``path``), the ``missing`` key below it if any, the text."""

    path: tuple[PathPart, ...]
    missing: tuple[PathPart, ...]
    message: str
    text: str


def locate(payload: Any, problems: tuple[str, ...] | list[str]) -> list[Located]:
    """Where each problem goes in ``payload`` (see the module docstring); order kept, none dropped."""
    out: list[Located] = []
    for text in problems:
        head, sep, rest = text.partition(": ")
        full = _parts(head) if sep and _PATH.fullmatch(head) and isinstance(payload, dict | list) else None
        if full is not None:
            found = _existing_prefix(payload, full)
            out.append(Located(full[:found], full[found:], rest, text))
        else:
            out.append(Located((), (), text, text))
    return out


def _parts(head: str) -> tuple[PathPart, ...] | None:
    """The path a problem starts with; None for one :func:`~tenantdeck.problems.parse_path` refuses (``x[01]``
    passes ``_PATH`` but is not how a path is written): such a problem is listed unplaced, never dropped."""
    try:
        return parse_path(head)
    except ValueError:
        return None


def _existing_prefix(payload: Any, path: tuple[PathPart, ...]) -> int:
    node = payload
    for i, part in enumerate(path):
        in_list = isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node)
        if in_list or (isinstance(part, str) and isinstance(node, dict) and part in node):
            node = node[part]
        else:
            return i
    return len(path)


def _scalar(value: Any) -> str:
    text = shown(json.dumps(value, ensure_ascii=False))
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def _key(part: PathPart) -> str:
    return f"[{part}]" if isinstance(part, int) else shown(str(part))


class PayloadTree(Tree[tuple[PathPart, ...]]):
    """Shows one :class:`Delivery`; node data is the node's path, so a problem can be jumped to."""

    DEFAULT_CSS = """
    PayloadTree { background: $surface; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("payload", data=(), **kwargs)
        self.show_root = True
        self.guide_depth = 2
        self._by_path: dict[tuple[PathPart, ...], TreeNode[tuple[PathPart, ...]]] = {}
        self.located: list[Located] = []

    def show(self, delivery: Delivery | None) -> None:
        """Rebuild for ``delivery`` (None: empty)."""
        self.clear()
        self._by_path = {(): self.root}
        self.located = []
        if delivery is None:
            self.root.set_label(Text("no delivery selected", style="dim"))
            return
        self.located = locate(delivery.payload, delivery.problems)
        on: dict[tuple[PathPart, ...], list[Located]] = {}
        for item in self.located:
            on.setdefault(item.path, []).append(item)
        title = shown(delivery.trigger or "(no trigger)")
        self.root.set_label(self._label(Text(f"payload · {title}", style="bold"),
                                         [p for p in on.get((), []) if not p.missing]))
        self.root.data = ()
        budget = [MAX_NODES]
        if delivery.payload is None:
            if delivery.raw is not None:
                self.root.add_leaf(Text(f"body (not JSON): {shown(delivery.raw[:MAX_VALUE * 4])}"), data=())
            else:
                self.root.add_leaf(Text("no payload kept", style="dim"), data=())
        else:
            self._fill(self.root, delivery.payload, (), on, budget)
        for item in self.located:
            if item.missing:
                parent = self._by_path.get(item.path, self.root)
                node = parent.add_leaf(Text(f"{_key(item.missing[0])}: (missing) ⚠ {shown(item.message)}",
                                            style="bold red"), data=item.path + item.missing)
                self._by_path.setdefault(item.path + item.missing, node)
        self.root.expand_all()

    def _fill(self, node: TreeNode[tuple[PathPart, ...]], value: Any, path: tuple[PathPart, ...],
              on: dict[tuple[PathPart, ...], list[Located]], budget: list[int]) -> None:
        items: list[tuple[PathPart, Any]] = (list(value.items()) if isinstance(value, dict)
                                             else list(enumerate(value)))
        for part, child in items:
            if budget[0] <= 0:
                node.add_leaf(Text(f"… {len(items)} items in all (not all drawn)", style="dim"), data=path)
                return
            budget[0] -= 1
            here = (*path, part)
            problems = [p for p in on.get(here, []) if not p.missing]
            if isinstance(child, dict | list):
                size = f"{{{len(child)}}}" if isinstance(child, dict) else f"[{len(child)}]"
                label = self._label(Text.assemble((_key(part), "bold"), f" {size}"), problems)
                branch = node.add(label, data=here)
                self._by_path[here] = branch
                self._fill(branch, child, here, on, budget)
            else:
                label = self._label(Text.assemble((_key(part), "bold"), ": ", _scalar(child)), problems)
                self._by_path[here] = node.add_leaf(label, data=here)

    @staticmethod
    def _label(text: Text, problems: list[Located]) -> Text:
        if not problems:
            return text
        text.stylize("bold red")
        text.append(" ⚠ " + shown("; ".join(p.message for p in problems if not p.missing)), style="red")
        return text

    def jump_to(self, item: Located, *, focus: bool = True) -> None:
        """Move the cursor to the node of ``item`` (its missing-key child when there is one)."""
        node = self._by_path.get(item.path + item.missing) or self._by_path.get(item.path) or self.root
        if focus:
            self.focus()
        self.call_after_refresh(self.move_cursor, node)  # lines are laid out at the next refresh

    def node_at(self, path: tuple[PathPart, ...]) -> TreeNode[tuple[PathPart, ...]] | None:
        """The node drawn for ``path`` (a missing key's red node too), if any."""
        return self._by_path.get(path)
