"""The preview page as HTML: the widget (launcher closed and open, sidebar, a sample conversation, composer) drawn
from a :class:`~tenantdeck.preview.model.WidgetPreview`, and the page around it that follows the editor live.

Safe by construction, in layers:

- every value of the draft is escaped for where it goes: :func:`text` (HTML text and attributes, after
  :func:`tenantdeck.textsafe.shown` writes control and bidi characters as visible escapes); colours reach CSS only
  as ``rgb(r, g, b)`` built from the integers :func:`~tenantdeck.draft.preview_scene.parse_colour` returns;
  ``custom_css`` goes through :func:`css_text`, which writes every ``<`` as the CSS escape ``\\3c `` (the same
  character to CSS), so no ``</style>`` in it can end its style element;
- the widget is a separate document in a sandboxed ``<iframe srcdoc>`` (no ``allow-scripts``, no
  ``allow-same-origin``): ``custom_css`` applies to the widget's document only and cannot reach the page around it
  (its notes, the banner), not even with ``position: fixed``;
- :func:`content_security_policy` forbids every script but the page's own (allowed by its SHA-256), so
  ``custom_js`` is never executed; the widget's document adds its own policy (:func:`widget_policy`) that allows
  images only from the exact URLs the draft names, and none when network is off.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from typing import Any, Final

from tenantdeck.draft.preview_scene import CALL_BUTTONS, COMPOSER_BUTTONS, Feature, Scene, parse_colour
from tenantdeck.models import catalog
from tenantdeck.preview.model import Image, WidgetPreview
from tenantdeck.textsafe import shortened, shown

#: said on the page and in the docs: this is not the vendor's widget
DISCLAIMER: Final = ("tenantdeck's rendering of the documented widget v2 settings, not the vendor's widget bundle: "
                     "layout and details of the real widget differ.")
#: what :func:`css_text` writes as a CSS escape: C0 and C1 controls (but the newline), DEL, bidi marks, separators
_CSS_UNSAFE: Final = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                                "\u2028\u2029]")
#: what the page uses where the widget's own background is not forced (override_system_background_colors false)
SYSTEM_BACKGROUND: Final = (242, 242, 245)


def text(value: Any, limit: int = 200) -> str:
    """A value of the draft as HTML text (or a quoted attribute value): control and bidi characters as visible
    escapes, long values shortened, ``< > & " '`` escaped."""
    return html.escape(shortened(shown(str(value)), limit), quote=True)


def css_text(css: str) -> str:
    """``custom_css`` for a ``<style>`` element: every ``<`` written as the CSS escape ``\\3c `` (the same character
    in a CSS string; nowhere else valid in CSS), so the text can neither end the element nor open a tag; tabs and
    other line ends as CSS reads them (a space, a newline), and every other control or bidi character as its CSS
    escape, so the page holds none raw."""
    css = css.replace("\t", " ").replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n")
    return _CSS_UNSAFE.sub(lambda m: f"\\{ord(m.group()):x} ", css.replace("<", "\\3c "))


# -- the widget's document ---------------------------------------------------------------------------------------

_WIDGET_CSS: Final = """
*{box-sizing:border-box}
html,body{margin:0;font:14px/1.35 "DejaVu Sans",sans-serif;background:#e9ebef;color:#222}
.td-states{display:flex;gap:16px;padding:12px;align-items:flex-start}
.td-state{flex:0 0 auto}
.td-state h2{font-size:12px;margin:0 0 6px;color:#555;text-transform:uppercase;letter-spacing:.05em}
.td-site{position:relative;background:#fff;border:1px solid #ccd;border-radius:6px;padding:12px 12px 76px}
.td-closed .td-site{width:180px;height:520px}
.td-launcher{position:absolute;right:12px;bottom:12px;width:56px;height:56px;border-radius:50%;
 background:var(--td-icon);display:flex;align-items:center;justify-content:center;overflow:hidden;
 box-shadow:0 2px 6px rgba(0,0,0,.3)}
.td-launcher img{width:28px;height:28px}
.td-placeholder{font-size:9px;line-height:1.1;color:#fff;text-align:center;padding:3px;word-break:break-all}
.cc-widget{display:flex;width:700px;height:420px;border-radius:8px;overflow:hidden;background:var(--td-background);
 color:var(--td-foreground);box-shadow:0 2px 10px rgba(0,0,0,.25)}
.cc-sidebar{width:190px;border-right:1px solid rgba(0,0,0,.12);padding:8px;display:flex;flex-direction:column;gap:4px}
.cc-new-chat{background:var(--td-primary);color:#fff;border-radius:6px;padding:6px 8px;font-weight:bold}
.cc-new-chat small,.cc-section small{display:block;font-weight:normal;font-size:11px;opacity:.8}
.cc-section{padding:6px 8px;border-radius:6px}
.cc-section:first-of-type{background:rgba(0,0,0,.07)}
.cc-conversation{flex:1;display:flex;flex-direction:column;min-width:0}
.cc-header{display:flex;align-items:center;gap:8px;padding:8px;border-bottom:1px solid rgba(0,0,0,.12)}
.cc-avatar{width:28px;height:28px;border-radius:50%;background:var(--td-primary);color:#fff;display:flex;
 align-items:center;justify-content:center;font-size:11px}
.cc-peer{flex:1;font-weight:bold}
.cc-presence{color:#2a2;font-weight:normal;font-size:11px}
.cc-button{border:1px solid var(--td-primary);color:var(--td-primary);border-radius:4px;padding:2px 6px;font-size:12px}
.cc-messages{flex:1;padding:8px;display:flex;flex-direction:column;gap:8px;overflow:hidden}
.cc-message{max-width:75%;padding:6px 9px;border-radius:10px;background:rgba(0,0,0,.07)}
.cc-message.cc-own{align-self:flex-end;background:var(--td-primary);color:#fff}
.cc-message.cc-deleted{font-style:italic;opacity:.6}
.cc-large{font-size:30px;line-height:1.1}
.cc-marks{display:flex;gap:8px;font-size:11px;opacity:.85;margin-top:3px;flex-wrap:wrap}
.cc-typing{font-size:12px;font-style:italic;opacity:.7}
.cc-composer{display:flex;gap:6px;align-items:center;padding:8px;border-top:1px solid rgba(0,0,0,.12)}
.cc-input{flex:1;border:1px solid rgba(0,0,0,.25);border-radius:14px;padding:5px 10px;opacity:.7}
.cc-send{background:var(--td-primary);color:#fff;border-radius:14px;padding:5px 10px}
.cc-off{flex:1;font-style:italic;opacity:.7}
"""


def colour(scene: Scene, role: str) -> str:
    """A colour of the scene as CSS, from integers only; a value that is not a colour falls back to the catalog's
    default (the scene's notes say so)."""
    swatch = scene.colours[role]
    rgb = swatch.rgb
    if rgb is None:
        rgb, _ = parse_colour(catalog.STYLE_DEFAULTS.get(swatch.key))
    r, g, b = rgb or (128, 128, 128)
    return f"rgb({r:d}, {g:d}, {b:d})"


def widget_policy(images: tuple[Image, ...]) -> str:
    """The widget document's own Content-Security-Policy (it adds to the page's, which it inherits): nothing but
    inline styles, and images from the exact URLs of the launcher icons (none with network off)."""
    sources = sorted({i.csp for i in images if i.csp})
    return f"default-src 'none'; style-src 'unsafe-inline'; img-src {' '.join(sources) or chr(39) + 'none' + chr(39)}"


def widget_document(preview: WidgetPreview) -> str:
    """The widget as its own HTML document (the iframe's ``srcdoc``)."""
    head = (f'<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" '
            f'content="{html.escape(widget_policy(preview.images), quote=True)}">'
            '<meta name="referrer" content="no-referrer">')
    scene = preview.scene
    if scene is None:
        body = f'<p class="td-empty">{text("; ".join(preview.notes))}</p>'
        return f"<!doctype html><html><head>{head}<style>{_WIDGET_CSS}</style></head><body>{body}</body></html>"
    background = colour(scene, "background") if scene.override_background else "rgb({}, {}, {})".format(
        *SYSTEM_BACKGROUND)
    variables = (f":root{{--td-primary:{colour(scene, 'primary')};--td-foreground:{colour(scene, 'foreground')};"
                 f"--td-background:{background};--td-icon:{colour(scene, 'icon')}}}")
    close, open_ = preview.images
    body = (
        '<div class="td-states">'
        f'<section class="td-state td-closed"><h2>Closed</h2><div class="td-site">{_launcher(close)}</div></section>'
        f'<section class="td-state td-open"><h2>Open</h2><div class="td-site">{_widget(scene)}{_launcher(open_)}'
        "</div></section></div>"
    )
    # tenantdeck's styles in a cascade layer: custom_css (unlayered) wins over them whatever its selectors' weight
    return (f"<!doctype html><html><head>{head}<style>@layer tenantdeck{{{_WIDGET_CSS}{variables}}}</style>"
            f'<style id="custom-css">{css_text(preview.custom_css)}</style></head><body>{body}</body></html>')


def _launcher(icon: Image) -> str:
    inside = (f'<img src="{html.escape(icon.url or "", quote=True)}" alt="{icon.key}" referrerpolicy="no-referrer">'
              if icon.csp else f'<span class="td-placeholder" title="{text(icon.why)}">{text(icon.short)}</span>')
    return f'<div class="td-launcher" data-icon="{icon.key}">{inside}</div>'


def _widget(scene: Scene) -> str:
    new_chat = (f'<div class="cc-new-chat">New conversation<small>{text(scene.new_chat)}</small></div>'
                if scene.new_chat else "")
    sections = "".join(
        f'<div class="cc-section" data-section="{s.id}">{text(s.label)}'
        + (f"<small>{text(s.caption)}</small>" if s.caption else "") + "</div>"
        for s in scene.sections
    )
    return (f'<div class="cc-widget"><aside class="cc-sidebar">{new_chat}{sections}</aside>'
            f'<main class="cc-conversation">{_header(scene)}{_messages(scene)}{_composer(scene)}</main></div>')


def _buttons(features: tuple[Feature, ...]) -> str:
    return "".join(f'<span class="cc-button" data-feature="{f.id}">{text(f.label)}</span>' for f in features)


def _header(scene: Scene) -> str:
    presence = '<span class="cc-presence" data-feature="presence">● online</span>' if scene.has("presence") else ""
    calls = _buttons(tuple(f for f in CALL_BUTTONS if f in scene.call_buttons))
    return (f'<header class="cc-header"><span class="cc-avatar">AL</span>'
            f'<span class="cc-peer">Ada Lovelace {presence}</span>{calls}</header>')


def _mark(scene: Scene, mark: str, label: str) -> str:
    return f'<span data-feature="{mark}">{label}</span>' if scene.has(mark) else ""


def _messages(scene: Scene) -> str:
    theirs = "".join(_mark(scene, m, label) for m, label in (
        ("reactions", "♥ 2"), ("threads", "↳ 2 replies"), ("translate", "Translate"), ("reply", "↩ Reply")))
    mine = _mark(scene, "edited", "(edited)") + _mark(scene, "receipts", "✓✓")
    deleted = ('<div class="cc-message cc-deleted" data-feature="deleted">This message was deleted</div>'
               if scene.show_deleted else "")
    large = ' cc-large" data-feature="large_emoji' if scene.has("large_emoji") else ""
    typing = ('<div class="cc-typing" data-feature="typing">Ada is typing…</div>' if scene.has("typing") else "")
    return (
        '<div class="cc-messages">'
        f'<div class="cc-message">Hi! Is the new plan live?<div class="cc-marks">{theirs}</div></div>'
        f'<div class="cc-message cc-own">Yes, since this morning.<div class="cc-marks">{mine}</div></div>'
        f"{deleted}"
        f'<div class="cc-message cc-own cc-emoji{large}">:D</div>'
        f"{typing}</div>"
    )


def _composer(scene: Scene) -> str:
    buttons = _buttons(tuple(f for f in COMPOSER_BUTTONS if f in scene.composer_buttons))
    if not scene.can_send:
        return (f'<footer class="cc-composer">{buttons}'
                '<span class="cc-off">Sending messages is turned off</span></footer>')
    return (f'<footer class="cc-composer">{buttons}<span class="cc-input">Type a message</span>'
            '<span class="cc-send" data-feature="send">Send</span></footer>')


# -- the page around it -------------------------------------------------------------------------------------------

#: the page's only script: it follows the server-sent events, loads each new widget document into the hidden one
#: of two frames and swaps them when it has loaded (no blank frame between versions), and sets the page's texts
#: with textContent (never as HTML). Allowed by its hash; nothing else may run.
LIVE_JS: Final = """(() => {
const frames = [document.getElementById("frame-0"), document.getElementById("frame-1")];
let front = 0, loading = false, pending = null, current = frames[0].srcdoc;
const byId = (id) => document.getElementById(id);
function list(id, items) {
  const el = byId(id); el.replaceChildren();
  for (const item of items) { const li = document.createElement("li"); li.textContent = item; el.append(li); }
}
function widgets(names, current) {
  const nav = byId("widgets"); nav.replaceChildren();
  names.forEach((name, i) => {
    const a = document.createElement(i === current ? "strong" : "a");
    if (i !== current) a.href = "?widget=" + i;
    a.textContent = name; nav.append(a, " ");
  });
}
function apply(u) {
  if (loading) { pending = u; return; }
  if (u.reload) { location.reload(); return; }
  byId("title").textContent = u.title; document.title = "tenantdeck preview: " + u.title;
  list("facts", u.facts); list("notes", u.notes); widgets(u.widgets, u.widget);
  if (u.doc === current) { document.body.dataset.version = u.version; return; }
  current = u.doc;
  const back = frames[1 - front];
  loading = true;
  back.onload = () => {
    back.classList.add("front"); frames[front].classList.remove("front"); front = 1 - front;
    document.body.dataset.version = u.version; loading = false;
    if (pending) { const next = pending; pending = null; apply(next); }
  };
  back.srcdoc = u.doc;
}
const events = new EventSource("events" + location.search);
events.addEventListener("update", (e) => apply(JSON.parse(e.data)));
events.onopen = () => { byId("live").textContent = "live"; };
events.onerror = () => { byId("live").textContent = "disconnected: retrying"; };
})();"""
SCRIPT_HASH: Final = "sha256-" + base64.b64encode(hashlib.sha256(LIVE_JS.encode()).digest()).decode()

_PAGE_CSS: Final = """
body{margin:0;font:14px/1.4 "DejaVu Sans",sans-serif;background:#f6f6f8;color:#222}
header{background:#263238;color:#fff;padding:8px 12px}
header p{margin:2px 0 0;font-size:12px;opacity:.85}
#title{font-weight:bold}
#live{float:right;font-size:12px;opacity:.85}
.info{padding:4px 12px;font-size:12px}
.info ul{margin:2px 0;padding-left:18px}
#notes li{color:#a33}
#widgets a,#widgets strong{margin-right:10px}
.frames{position:relative;height:600px;margin:0 12px}
.frames iframe{position:absolute;inset:0;width:100%;height:100%;border:1px solid #ccd;visibility:hidden}
.frames iframe.front{visibility:visible}
"""


def content_security_policy(allow_network: bool) -> str:
    """The page's policy (the widget's frame inherits it): no script but the page's own, styles inline only, no
    form, no framing of the page; images from the network only when allowed (the frame narrows it to the draft's
    URLs)."""
    images = "https: http:" if allow_network else "'none'"
    return (f"default-src 'none'; script-src '{SCRIPT_HASH}'; style-src 'unsafe-inline'; img-src {images}; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def title(preview: WidgetPreview) -> str:
    if preview.scene is None:
        return preview.app_name or "no app"
    return f"{preview.app_name} · {preview.scene.name}"


def facts(preview: WidgetPreview, allow_network: bool) -> list[str]:
    """What the page states beside the widget: custom_js, custom_css, images, what is on but not drawn."""
    out: list[str] = []
    scene = preview.scene
    if scene is None:
        return out
    if scene.extends:
        inherited = f", {scene.inherited} value(s) inherited" if scene.preset_found else " (not found)"
        out.append(f"extends preset {scene.extends}{inherited}")
    if preview.custom_js is not None:
        out.append(f"custom_js: present ({len(preview.custom_js)} characters) and not run: this page's "
                   "Content-Security-Policy forbids scripts")
    if preview.custom_css:
        out.append(f"custom_css: applied ({len(preview.custom_css)} characters), inside the widget's frame only")
    out.append("images: loaded only from the URLs the draft names" if allow_network else
               "images: off (network not allowed; `tenantdeck preview --allow-network` loads the draft's icons)")
    out.extend(f"{i.key}: {i.why}" for i in preview.images if i.why and allow_network)
    if scene.also_on:
        out.append("also on (not drawn): " + ", ".join(scene.also_on))
    return [shortened(shown(f), 400) for f in out]


def update(preview: WidgetPreview, version: int, allow_network: bool) -> dict[str, Any]:
    """One server-sent update: the widget document and the page's texts (set as text by the page's script)."""
    return {
        "version": version,
        "title": shortened(shown(title(preview)), 200),
        "doc": widget_document(preview),
        "facts": facts(preview, allow_network),
        "notes": [shortened(shown(n), 400) for n in preview.notes],
        "widgets": [shortened(shown(n), 80) for n in preview.widget_names],
        "widget": preview.widget_index,
    }


def page(preview: WidgetPreview, version: int, allow_network: bool) -> str:
    """The whole page as first served; later versions arrive as :func:`update` events."""
    u = update(preview, version, allow_network)
    doc = html.escape(u["doc"], quote=True)  # in both frames: the hidden one is then ready for the first update

    def items(values: list[str]) -> str:
        return "".join(f"<li>{html.escape(v, quote=True)}</li>" for v in values)

    nav = "".join(
        f"<strong>{html.escape(n)}</strong> " if i == u["widget"] else f'<a href="?widget={i}">{html.escape(n)}</a> '
        for i, n in enumerate(u["widgets"])
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
        f"<title>tenantdeck preview: {html.escape(u['title'])}</title><style>{_PAGE_CSS}</style></head>"
        f'<body data-version="{version:d}"><header><span id="live">connecting</span>'
        f'<span id="title">{html.escape(u["title"])}</span><p>{html.escape(DISCLAIMER)}</p></header>'
        f'<div class="info"><nav id="widgets">{nav}</nav><ul id="facts">{items(u["facts"])}</ul>'
        f'<ul id="notes">{items(u["notes"])}</ul></div>'
        f'<div class="frames"><iframe id="frame-0" class="front" sandbox title="the widget" srcdoc="{doc}"></iframe>'
        f'<iframe id="frame-1" sandbox title="the widget (next version)" srcdoc="{doc}"></iframe></div>'
        f"<script>{LIVE_JS}</script></body></html>"
    )


def event(payload: dict[str, Any]) -> bytes:
    """One server-sent event named ``update`` (JSON on one line: no newline of the data can end the event)."""
    return f"event: update\ndata: {json.dumps(payload, ensure_ascii=True)}\n\n".encode()
