"""The regular expressions a rule holds, run on a linear-time engine.

Why RE2 and not :mod:`re`: a rules file comes from a pull request and the text it is matched against from the
service (a webhook's name, which anyone with dashboard access can set), so both are hostile. Python's backtracking
engine takes exponential time on patterns such as ``^(a+)+$``: against ``"a" * 30 + "!"`` it ran 52 s (measured:
docs/benchmarks.md, issue 32), and a longer name never returns, hanging ``validate``, ``audit``, CI and the editor.
RE2 (``google-re2``) matches in time linear in the text whatever the pattern: 0.05 ms for the same case, 20 ms for a
10 MB text. It refuses the few constructs that need backtracking (backreferences, lookaround, possessive
quantifiers); a rule that uses one is an error of the policies file at its line, naming the construct, rather than
a rule that may hang.

CEL's own ``matches()`` already runs on a linear-time engine: the ``common-expression-language`` wheel embeds the
Rust ``cel`` crate 0.14.5, which matches with the Rust ``regex`` crate 1.13 (its SBOM,
``common_expression_language-*.dist-info/sboms/cel.cyclonedx.json``, lists ``regex``, ``regex-automata``, and no
backtracking engine); :func:`cel_pattern_problem` checks a literal pattern of a CEL check with that same engine
when the file is read.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import re2

#: RE2's wording of what it refuses -> what the construct is called (the user wrote a Python/PCRE habit)
_CONSTRUCTS = (
    (re.compile(r"invalid escape sequence: \\[1-9]"), "a backreference (\\1 ...)"),
    (re.compile(r"invalid perl operator: \(\?<?="), "a lookaround ((?=...) or (?<=...))"),
    (re.compile(r"invalid perl operator: \(\?<?!"), "a negative lookaround ((?!...) or (?<!...))"),
    (re.compile(r"invalid perl operator: \(\?>"), "an atomic group ((?>...))"),
    (re.compile(r"bad repetition operator: [*+?]\+"), "a possessive quantifier (*+, ++, ?+)"),
    (re.compile(r"invalid escape sequence: \\Z"), "\\Z (write $)"),
    (re.compile(r"pattern too large"), "a pattern too large for the matcher's memory budget"),
)


class PatternError(ValueError):
    """A pattern the linear-time engine cannot run; the message names the construct."""


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would write each refused pattern to stderr itself, past our located error
    return options


@functools.lru_cache(maxsize=512)
def compile_pattern(text: str) -> Any:
    """``text`` compiled by RE2 (``.search(value)`` as :meth:`re.Pattern.search`); raises :class:`PatternError`."""
    try:
        return re2.compile(text, options=_options())
    except re2.error as exc:
        raise PatternError(_why(exc, text)) from None


def _why(exc: Exception, text: str) -> str:
    detail = exc.args[0] if exc.args else ""
    detail = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
    named = "(?P=" in text and detail.startswith("invalid perl operator: (?P")  # RE2 stops at "(?P"
    construct = "a named backreference ((?P=name))" if named else next(
        (name for shape, name in _CONSTRUCTS if shape.search(detail)), None)
    if construct is None:
        return f"not a regular expression: {detail}"
    return (f"uses {construct}, which needs a backtracking matcher; tenantdeck matches in linear time (RE2 "
            f"syntax) so that no text can hang a check ({detail})")


@functools.lru_cache(maxsize=512)
def cel_pattern_problem(pattern: str) -> str | None:
    """Why CEL's ``matches()`` cannot run ``pattern`` (the Rust ``regex`` crate's own words), or None: asked of the
    engine that will run it, so the check when the file is read and the evaluation agree."""
    from tenantdeck.policies.cellib import cel

    try:
        cel.evaluate("''.matches(p)", {"p": pattern})
    except Exception as exc:  # the binding raises RuntimeError; any refusal is the pattern's
        lines = [line.strip() for line in str(exc).splitlines() if line.strip().startswith("error:")]
        return lines[0].removeprefix("error:").strip().removesuffix(" Check function arguments and their types.") \
            if lines else str(exc).splitlines()[0]
    return None


__all__ = ["PatternError", "cel_pattern_problem", "compile_pattern"]
