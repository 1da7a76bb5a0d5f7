"""Textual's line-style cache without the hold it has on every widget it ever drew (Textualize/textual#6665).

``StylesCache.get_inner_outer`` is an instance method under ``functools.lru_cache(1024)``, so the cache's keys are
``(styles_cache, base_background, background)``: it keeps the last 1,024 widgets' :class:`StylesCache` objects
alive, each with every :class:`~textual.strip.Strip` it cached, and each strip with its own caches. In this editor
that is about 10,000 strips and 70,000 small cache objects alive after every screen that drew them has closed:
half of what a full garbage collection walked between two tests (177,000 objects, 91,000 of them the
``FIFOCache`` objects of dead strips), and the same dead weight in every full collection the editor makes while
the user types (issue 36's pauses). The answer depends on the two colours only, so it is cached on them alone,
in one cache for the process, computed by Textual's own function.

Installed once per process by the app; a Textual that no longer wraps the method (fixed upstream, or changed)
is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from textual._styles_cache import StylesCache


def install() -> bool:
    """Replace ``StylesCache.get_inner_outer`` with one cached on its colours; True if it was replaced now."""
    method = StylesCache.__dict__.get("get_inner_outer")
    compute: Callable[..., Any] | None = getattr(method, "__wrapped__", None)
    if compute is None or not hasattr(method, "cache_clear"):
        return False  # already installed, or Textual changed: nothing of ours to fix

    @lru_cache(1024)
    def inner_outer(base_background: Any, background: Any) -> Any:
        return compute(None, base_background, background)

    def get_inner_outer(self: StylesCache, base_background: Any, background: Any) -> Any:
        return inner_outer(base_background, background)

    get_inner_outer.__doc__ = method.__doc__
    method.cache_clear()  # let go of the widgets it holds already
    StylesCache.get_inner_outer = get_inner_outer  # type: ignore[method-assign]
    return True
