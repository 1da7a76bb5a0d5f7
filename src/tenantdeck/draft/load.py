"""Load a draft: text -> data -> ``Draft``, with every problem located and sorted.

Order of work, cheapest first, and positions last:

1. read and decode (size cap before reading, UTF-8 checked with the offset of a bad byte);
2. build data from libyaml events (:mod:`~tenantdeck.draft.yamlsource`): syntax, aliases, duplicate keys, tags;
3. validate with the strict models, then the cross-object rules (:mod:`tenantdeck.rules`);
4. only if anything was found: compose a node tree and place every problem at its line and column.

A valid draft therefore never pays for positions.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenantdeck.draft import yamlsource
from tenantdeck.draft.locate import Positions
from tenantdeck.problems import PathPart, Problem, Severity, sort_problems

if TYPE_CHECKING:
    from pydantic import ValidationError

    from tenantdeck.models import Draft


@dataclass(slots=True)
class DraftDocument:
    """The source a draft was read from: its name, text and plain data; positions are composed on first use.

    A path inside one app or preset is placed from that entry's own text (:func:`tenantdeck.draft.splice.scan`
    cuts the text into regions with regular expressions at C speed, and the region is composed alone: a few
    kilobytes), so one problem in a 25 MB draft costs what the region costs, not a node tree of the whole file
    (which took 2.8x the time and 3.9x the memory of validating it clean; issue 33 item 8). A region is used only
    when it reads back as exactly the data's entry; anything else (flow style, odd layout) composes the whole text,
    as before.
    """

    file: str
    text: str | None
    data: Any = None
    _positions: Positions | None = field(default=None, repr=False)
    _layout: Any = field(default=False, repr=False)  # False: not scanned yet; None: not laid out in regions
    _regions: dict[tuple[str, Any], tuple[Positions, int] | None] = field(default_factory=dict, repr=False)

    @property
    def positions(self) -> Positions | None:
        if self._positions is None and self.text is not None:
            self._positions = Positions(self.text)
        return self._positions

    def _region(self, path: Sequence[PathPart]) -> tuple[Positions, int, tuple[PathPart, ...]] | None:
        """(the region's positions, its first line - 1, ``path`` relative to it) when ``path`` lies in one app or
        preset whose region can be trusted; None otherwise."""
        if len(path) < 2 or path[0] not in ("apps", "presets") or self.text is None or not isinstance(self.data, dict):
            return None
        section, index = str(path[0]), path[1]
        if (section, index) not in self._regions:
            self._regions[(section, index)] = self._compose_region(section, index)
        region = self._regions[(section, index)]
        if region is None:
            return None
        head: PathPart = 0 if section == "apps" else index
        return region[0], region[1], (head, *path[2:])

    def _compose_region(self, section: str, index: Any) -> tuple[Positions, int] | None:
        from tenantdeck.draft import splice

        if self._layout is False:
            self._layout = splice.scan(self.text or "", self.data)
        layout = self._layout
        regions = None if layout is None else layout.apps if section == "apps" else layout.presets
        entries = self.data.get(section)
        if regions is None or entries is None:
            return None
        if section == "apps":
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(regions):
                return None
            at, expected = index, [entries[index]]
        else:
            names = list(entries)
            if index not in entries or len(names) != len(regions):
                return None
            at, expected = names.index(index), {index: entries[index]}
        start, end, line = regions[at]
        text = (self.text or "")[start:end]
        parsed = yamlsource.parse(text)
        if parsed.fatal or parsed.data != expected:  # trust the cut only where it reads back as the data
            return None
        return Positions(text), line - 1

    def locate(self, path: Sequence[PathPart], *, at: str = "value") -> tuple[int, int]:
        """1-based (line, column) for a key path; ``at`` is "value", "key" or "parent" (for a missing key)."""
        target = path[:-1] if at == "parent" else path
        if at == "parent" and not path:
            return (1, 1)
        region = self._region(target)
        if region is not None:
            positions, offset, rel = region
            line, column = positions.position(rel, at_key=at != "value")
            return (line + offset, column)
        positions = self.positions
        if positions is None or positions.root is None:
            return (0, 0)
        return positions.position(target, at_key=at != "value")

    def scalar(self, path: Sequence[PathPart]) -> tuple[str, str, str] | None:
        """(raw text, quote style or "", resolved tag) of the scalar written at ``path``."""
        region = self._region(path)
        if region is not None:
            node = region[0].scalar(region[2])
        else:
            positions = self.positions
            node = positions.scalar(path) if positions is not None else None
        if node is None:
            return None
        return (node.value, node.style or "", node.tag)

    def place(self, problem: Problem) -> Problem:
        """``problem`` with this file's name and, if it has none yet, the position of its path."""
        if problem.line:
            return problem if problem.file else problem.located(self.file, problem.line, problem.column)
        at = str(problem.extra.get("at", "value")) if problem.extra else "value"
        line, column = self.locate(problem.path, at=at)
        return problem.located(self.file, line, column)


@dataclass(slots=True)
class LoadResult:
    """A loaded draft and its problems, sorted in line order.

    ``draft`` is None when the models could not parse the data; it is set (with ``ok`` false) when only
    cross-object rules found errors, so that a caller such as the UI can still show what was read.
    """

    draft: Draft | None
    problems: list[Problem]
    doc: DraftDocument

    @property
    def ok(self) -> bool:
        """No errors (warnings allowed)."""
        return self.draft is not None and not any(p.is_error for p in self.problems)


def load_draft(
    path: str | os.PathLike[str], *, display: str | None = None, max_bytes: int = yamlsource.MAX_BYTES
) -> LoadResult:
    """Read, parse and validate the draft at ``path``; never raises for anything in the file."""
    name = display if display is not None else os.fspath(path)
    text, problems = yamlsource.read_text(path, display=name, max_bytes=max_bytes)
    if text is None:
        return LoadResult(None, problems, DraftDocument(name, None))
    return load_text(text, name)


def load_text(text: str, file: str = "<draft>") -> LoadResult:
    """Parse and validate draft ``text`` (what :func:`load_draft` does after reading the file)."""
    from tenantdeck.draft.raw_scalars import comment_problems

    parsed = yamlsource.parse(text, file)
    doc = DraftDocument(file, text, parsed.data)
    # a raw bidi character in a comment, which no escape can write (the data settles most without a second read)
    problems = [*parsed.problems, *comment_problems(text, file, data=None if parsed.fatal else parsed.data)]
    if parsed.fatal or parsed.empty:
        return LoadResult(None, sort_problems(problems), doc)

    problems.extend(_duplicates(doc, parsed.duplicates))
    draft, found = validate_data(parsed.data, doc)
    problems.extend(found)
    problems.extend(_surprise_warnings(parsed.surprises, problems))
    return LoadResult(draft, sort_problems(doc.place(p) for p in problems), doc)


def validate_data(data: Any, doc: DraftDocument) -> tuple[Draft | None, list[Problem]]:
    """Strict model validation, then cross-object rules; problems carry paths (placed by the caller)."""
    from pydantic import ValidationError

    from tenantdeck.models import Draft

    if not isinstance(data, dict):
        got = "a list" if isinstance(data, list) else "a single value" if data is not None else "nothing"
        return None, [
            Problem(
                Severity.ERROR,
                f"a draft is a mapping with the keys format, presets and apps; this file holds {got}",
                (),
                code="draft-type",
                extra={"at": "value"},
            )
        ]
    try:
        draft = Draft.model_validate(data)
        if not doc.file.startswith("<"):
            draft._source = Path(doc.file)
    except ValidationError as exc:
        from tenantdeck.draft.pydantic_problems import convert

        found = convert(exc, root=Draft, data=data, scalar=doc.scalar)
        return None, found + _rules_of_sound_parts(data, doc, found)

    return draft, _check_rules(draft, _converter(data, doc)) + _certificate_problems(draft)


def _converter(data: Any, doc: DraftDocument) -> Any:
    def converter(exc: ValidationError, prefix: tuple[PathPart, ...]) -> list[Problem]:
        from tenantdeck.draft.pydantic_problems import convert  # only when there is something to convert
        from tenantdeck.models import Draft

        return convert(exc, prefix, root=Draft, data=data, scalar=doc.scalar)

    return converter


def _rules_of_sound_parts(data: dict[str, Any], doc: DraftDocument, found: list[Problem]) -> list[Problem]:
    """The cross-object rules of every app and preset the models accepted, when another one has a model error:
    one broken app hides no problem of the rest, as in the editor's session (which validates each app on its own,
    ``draft.session.validation``), so ``validate`` and the Problems screen count the same (issue 37 item 2)."""
    from pydantic import ValidationError

    from tenantdeck.models import Draft
    from tenantdeck.rules import WidgetChecker, check_app, check_preset, unique_names_and_ids

    apps, presets = data.get("apps"), data.get("presets")
    apps = apps if isinstance(apps, list) else []
    presets = presets if isinstance(presets, dict) else {}
    broken = {p.path[:2] for p in found if len(p.path) >= 2 and p.path[0] in ("apps", "presets")}
    kept = [i for i in range(len(apps)) if ("apps", i) not in broken]
    try:
        sound = Draft.model_validate({"format": 1, "apps": [apps[i] for i in kept],
                                      "presets": {n: v for n, v in presets.items() if ("presets", n) not in broken}})
    except ValidationError:  # a part fails only beside the others (cannot happen today): what was found stands
        return []
    if not doc.file.startswith("<"):
        sound._source = Path(doc.file)
    objects: list[Any] = [None] * len(apps)
    for i, app in zip(kept, sound.apps, strict=True):
        objects[i] = app
    checker = WidgetChecker(sound.presets, [str(n) for n in presets])
    problems = unique_names_and_ids(objects)
    for name, preset in sound.presets.items():
        problems += check_preset(name, preset)
    converter = _converter(data, doc)
    for i, app in zip(kept, sound.apps, strict=True):
        problems += check_app(checker, app, ("apps", i), converter)
    return problems + [p for i, app in zip(kept, sound.apps, strict=True) if app.push_certificates is not None
                       for p in _app_certificates(app, i, sound)]


def _app_certificates(app: Any, i: int, draft: Draft) -> list[Problem]:
    from tenantdeck.models.certfiles import certificate_problems

    return certificate_problems(app, ("apps", i), draft.folder)


def _check_rules(draft: Draft, converter: Any) -> list[Problem]:
    from tenantdeck.rules import check_draft

    return list(check_draft(draft, converter))


def _certificate_problems(draft: Draft) -> list[Problem]:
    """The files the draft names that cannot be uploaded (missing, not a regular file, too large, empty, outside
    the draft's folder): errors at their keys, offline, before any command reads the service."""
    named = [(i, app) for i, app in enumerate(draft.apps) if app.push_certificates is not None]
    if not named:
        return []
    from tenantdeck.models.certfiles import certificate_problems

    return [p for i, app in named for p in certificate_problems(app, ("apps", i), draft.folder)]


def _duplicates(doc: DraftDocument, duplicates: list[yamlsource.Duplicate]) -> list[Problem]:
    """Name both lines of a repeated key; positions of the first need the node tree, so only here."""
    out: list[Problem] = []
    if not duplicates:
        return out
    positions = doc.positions
    for dup in duplicates:
        key = dup.path[-1]
        lines = [line for line, _ in positions.key_occurrences(dup.path)] if positions else []
        first = next((line for line in lines if line < dup.line), None)
        where = f"lines {first} and {dup.line}" if first else f"line {dup.line} and earlier"
        message = f"duplicate key `{key}` in the same mapping ({where}); only the last one would count — remove one"
        out.append(Problem(Severity.ERROR, message, dup.path, doc.file, dup.line, dup.column, "yaml-duplicate-key"))
    return out


def _surprise_warnings(surprises: list[yamlsource.Surprise], problems: list[Problem]) -> list[Problem]:
    """YAML 1.1 readings that validation accepted (``yes`` for a boolean, ``010`` for a number): warn, never silent."""
    taken = {p.path for p in problems}
    out: list[Problem] = []
    for s in surprises:
        if s.path in taken:
            continue  # an error at the same place already explains it
        reading = yamlsource.scalar_reading(s.raw, s.value)
        if isinstance(s.value, bool):
            advice = f"write {'true' if s.value else 'false'} (YAML 1.2 tools and editors read `{s.raw}` as text)"
        elif isinstance(s.value, int | float):
            advice = f"write {s.value!r}, or quote it if it is meant as text: {yamlsource.quote(s.raw)}"
        else:
            advice = f"quote it if it is meant as text: {yamlsource.quote(s.raw)}"
        out.append(Problem(Severity.WARNING, f"{reading}; {advice}", s.path, "", s.line, s.column, "yaml-1.1"))
    return out
