"""The CEL library (``common-expression-language``), imported without its command line.

Why: the package's ``__init__`` imports its REPL (``cel.cli``: typer, prompt_toolkit, pygments) on every ``import
cel``, 128 ms of the 420 ms a ``tenantdeck validate`` with one CEL rule took (``python -X importtime``), and the
same in the editor's first policy evaluation and every CI command that reads the policies. Nothing here runs the
REPL. While the package is first imported, ``cel.cli`` is an empty module; it is then taken out of
``sys.modules`` (and off the package), so an explicit ``import cel.cli`` elsewhere in the process still loads the
real one. Every module of tenantdeck takes ``cel`` from here.
"""

from __future__ import annotations

import sys
import types

if "cel" not in sys.modules:
    sys.modules["cel.cli"] = types.ModuleType("cel.cli", "the CEL REPL, not loaded by tenantdeck")
    try:
        import cel
    finally:
        del sys.modules["cel.cli"]
    if isinstance(getattr(cel, "cli", None), types.ModuleType) and not hasattr(cel.cli, "app"):
        del cel.cli
else:
    import cel

from cel import Context

__all__ = ["Context", "cel"]
