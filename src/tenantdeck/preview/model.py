"""What the browser preview shows of one app of a draft, as data: which widget, its scene, its images and the facts
the page states beside it (custom_js present and not run, images off). No HTML here (:mod:`.page` writes it).

The effective settings come from :func:`resolve`, the one call of the function the editor's Preview tab uses
(preset, the widget's own values over it, catalog defaults; valid or not), and what is drawn from
:func:`tenantdeck.draft.preview_scene.build_scene`, the same scene the terminal sketch paints: the page and the tab
cannot disagree about which toggle shows which button.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import quote, urlsplit

from tenantdeck.draft.effective_widget import EffectiveWidget, effective_widget
from tenantdeck.draft.preview_scene import Scene, build_scene
from tenantdeck.models import catalog

#: the two images of the docked launcher, in the order the page shows them (closed, then open)
ICON_KEYS: Final = ("docked_layout_icon_close", "docked_layout_icon_open")
#: a host the page may name in its Content-Security-Policy: letters, digits, dots and hyphens, an optional port
_HOST = re.compile(r"^[A-Za-z0-9.-]+(:[0-9]{1,5})?$")


def resolve(widget: Any, presets: Any) -> EffectiveWidget:
    """A widget's effective settings: THE one place the preview resolves presets and overrides, through the
    function the editor's Preview tab calls (re-point it here if that function moves)."""
    return effective_widget(widget, presets)


@dataclass(frozen=True, slots=True)
class AppRef:
    """Which app the preview follows: by name (``--app NAME``, found again after every change) or by index (the
    editor's App screen). With neither, the draft's first app."""

    name: str | None = None
    index: int | None = None

    def find(self, apps: list[Any]) -> int | None:
        if self.name is not None:
            for i, app in enumerate(apps):
                if isinstance(app, Mapping) and app.get("name") == self.name:
                    return i
            return None
        index = self.index if self.index is not None else 0
        return index if 0 <= index < len(apps) else None


@dataclass(frozen=True, slots=True)
class Image:
    """One launcher image: ``url`` as the draft writes it, ``csp`` the source the page's policy allows for it
    (None: the page does not load it) and ``why`` when it is not loaded."""

    key: str
    url: str | None
    csp: str | None
    why: str | None
    #: the placeholder's words (a launcher is 56 pixels wide)
    short: str = ""


@dataclass(frozen=True, slots=True)
class WidgetPreview:
    """Everything one page shows; ``notes`` are the scene's (what could not be drawn) and the preview's own."""

    app_name: str
    app_index: int | None
    widget_index: int
    widget_names: tuple[str, ...]
    scene: Scene | None
    style: Mapping[str, Any]
    images: tuple[Image, ...]
    custom_css: str
    #: the widget's custom_js, None when it has none (or only the service's default, ``v2``, which is no code)
    custom_js: str | None
    notes: tuple[str, ...] = field(default=())


def image(key: str, url: Any, allow_network: bool) -> Image:
    """Whether the page may load the image at ``url``: only an ``http(s)`` URL with a plain host, and only when the
    admin allows network; its policy source is the exact URL (path and all), so nothing else loads."""
    if not isinstance(url, str) or not url.strip():
        return Image(key, None, None, "no image URL", "no image")
    text = url.strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not _HOST.match(parts.netloc or ""):
        return Image(key, text, None, "not an http(s) URL the preview loads", "not loaded")
    if not allow_network:
        return Image(key, text, None, "not loaded: network is off (--allow-network loads the draft's images)",
                     "image off (offline)")
    path = quote(parts.path or "/", safe="/-._~!$&()+=:@%")
    return Image(key, text, f"{parts.scheme}://{parts.netloc}{path}", None)


def widget_preview(data: Any, ref: AppRef, widget_index: int, *, allow_network: bool) -> WidgetPreview:
    """The preview of widget ``widget_index`` of the app ``ref`` finds in a draft's plain data. Never raises: a
    draft being typed into still gives a page, with notes saying what is missing."""
    apps = data.get("apps") if isinstance(data, Mapping) else None
    apps = apps if isinstance(apps, list) else []
    index = ref.find(apps)
    if index is None:
        wanted = repr(ref.name) if ref.name is not None else f"number {(ref.index or 0) + 1}"
        return _empty(f"the draft has no app {wanted}", None, widget_index)
    app = apps[index] if isinstance(apps[index], Mapping) else {}
    app_name = app.get("name") if isinstance(app.get("name"), str) else f"app {index + 1}"
    widgets = app.get("widgets") if isinstance(app.get("widgets"), list) else []
    names = tuple(_widget_name(w, i) for i, w in enumerate(widgets))
    if not widgets:
        return _empty("this app has no widget", index, 0, app_name)
    widget_index = min(max(widget_index, 0), len(widgets) - 1)
    presets = data.get("presets") if isinstance(data, Mapping) else None
    effective = resolve(widgets[widget_index], presets)
    scene = build_scene(effective)
    style = effective.style
    images = tuple(image(key, style.get(key), allow_network) for key in ICON_KEYS)
    css = style.get("custom_css")
    js = style.get("custom_js")
    notes = list(scene.notes)
    if css is not None and not isinstance(css, str):
        notes.append(f"style.custom_css is {type(css).__name__}, not text: left out")
    return WidgetPreview(
        app_name=app_name, app_index=index, widget_index=widget_index, widget_names=names, scene=scene,
        style=style, images=images, custom_css=css if isinstance(css, str) else "",
        custom_js=js if isinstance(js, str) and js and js != catalog.STYLE_DEFAULTS["custom_js"] else None,
        notes=tuple(notes),
    )


def _widget_name(widget: Any, index: int) -> str:
    name = widget.get("name") if isinstance(widget, Mapping) else None
    return name if isinstance(name, str) and name.strip() else f"widget {index + 1}"


def _empty(why: str, index: int | None, widget_index: int, app_name: str = "") -> WidgetPreview:
    return WidgetPreview(app_name=app_name, app_index=index, widget_index=widget_index, widget_names=(),
                         scene=None, style={}, images=(), custom_css="", custom_js=None, notes=(why,))
