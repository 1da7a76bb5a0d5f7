"""Four costs Textual puts on the screens this editor opens, undone once per process (each a private hook of
Textual's, checked before it is replaced: a Textual that changed it is left as it is).

**Line styles cached on the widget** (Textualize/textual#6665). ``StylesCache.get_inner_outer`` is an instance
method under ``functools.lru_cache(1024)``, so the cache's keys are ``(styles_cache, base_background,
background)``: it keeps the last 1,024 widgets' :class:`StylesCache` objects alive, each with every
:class:`~textual.strip.Strip` it cached, and each strip with its own caches. In this editor that is about 10,000
strips and 70,000 small cache objects alive after every screen that drew them has closed: half of what a full
garbage collection walked between two tests (177,000 objects, 91,000 of them the ``FIFOCache`` objects of dead
strips), and the same dead weight in every full collection the editor makes while the user types (issue 36's
pauses). The answer depends on the two colours only, so it is cached on them alone, computed by Textual's own
function.

**A screen laid out twice as it opens.** A pushed screen lays itself out when it resumes; that first layout
"shows" the screen itself, so it posts itself a ``Resize`` of the size it was just laid out at, and
``Screen._on_resize`` lays the whole screen out again (and every screen under it). Opening an app: 46 then 32 ms of
layout for the same 80x24 (issue 36's "Enter: open an app"). A screen already laid out at the size it is told is
not laid out again; a real resize (another size) is, and layout a widget asked for is still done by the screen's
update timer, as always.

**A screen styled again with nothing changed.** Every ``ScreenResume`` makes Textual work out the style of every
node of the screen again (``Screen._on_screen_resume`` -> ``update_node_styles``): the screen just pushed, whose
nodes were styled as they mounted a moment before (7-9 ms of bulk edit's first frame, 5-10 of the other screens'),
and a screen shown again, styled and kept (an installed screen: the App screen kept for the session,
``AppScreen.for_app``, 50-90 ms of re-opening an app; the installed help) (issue 36). A widget whose classes or
focus change is restyled by Textual as it changes, on a screen shown or not; what else the styles depend on is the
app's: its stylesheet (a theme or a CSS reload counts it, ``App._css_update_count``), its classes and pseudo-classes
(dark, focus, ANSI colour). The state of those is recorded as a screen is registered (styled as it mounts) and as it
is put away; a resume that finds them as recorded is not restyled, any other is, as Textual does.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from textual._styles_cache import StylesCache
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget


def install() -> None:
    """The fixes, once per process (the app calls it as it mounts)."""
    _line_styles_on_colours()
    _no_second_layout_at_the_same_size()
    _no_restyle_of_a_screen_styled_already()


def _line_styles_on_colours() -> bool:
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


def _no_second_layout_at_the_same_size() -> bool:
    """Wrap ``Screen._screen_resized``: nothing to do when the screen is laid out at that size already."""
    original = Screen.__dict__.get("_screen_resized")
    if original is None or getattr(original, "_tenantdeck", False):
        return False

    def _screen_resized(self: Screen[Any], size: Size) -> None:
        compositor = getattr(self, "_compositor", None)
        if compositor is not None and size and compositor.size == size:
            return  # its own first layout's echo, or a resize to the size it has
        original(self, size)

    _screen_resized._tenantdeck = True  # type: ignore[attr-defined]
    Screen._screen_resized = _screen_resized  # type: ignore[method-assign]
    return True


def _styled_with(app: Any) -> tuple[object, ...]:
    """What of the app a screen's styles depend on besides the screen's own widgets."""
    return app._css_update_count, frozenset(app.classes), frozenset(app.get_pseudo_classes())


def _no_restyle_of_a_screen_styled_already() -> bool:
    """Wrap ``Screen._post_register`` and ``Screen._on_screen_suspend`` (note what the screen is styled with) and
    ``Screen._on_screen_resume`` (no restyle when that is unchanged)."""
    suspend = Screen.__dict__.get("_on_screen_suspend")
    resume = Screen.__dict__.get("_on_screen_resume")
    if (suspend is None or resume is None or getattr(resume, "_tenantdeck", False)
            or "_post_register" in Screen.__dict__):
        return False

    def _post_register(self: Screen[Any], app: Any) -> None:
        Widget._post_register(self, app)
        self._tenantdeck_styled_with = _styled_with(app)  # type: ignore[attr-defined]  # the app registering it

    def _on_screen_suspend(self: Screen[Any]) -> None:
        suspend(self)
        self._tenantdeck_styled_with = _styled_with(self.app)  # type: ignore[attr-defined]

    def _on_screen_resume(self: Screen[Any], event: Any) -> None:
        styled = getattr(self, "_tenantdeck_styled_with", None)
        self._tenantdeck_styled_with = None  # type: ignore[attr-defined]  # noted again when put away
        if event.refresh_styles and styled is not None and styled == _styled_with(self.app):
            event.refresh_styles = False
        resume(self, event)

    _on_screen_resume._tenantdeck = True  # type: ignore[attr-defined]
    Screen._post_register = _post_register  # type: ignore[method-assign]
    Screen._on_screen_suspend = _on_screen_suspend  # type: ignore[method-assign]
    Screen._on_screen_resume = _on_screen_resume  # type: ignore[method-assign]
    return True
