"""A small Sphinx extension for the book build (listed in ``_config.yml``).

Under Jupyter Book some extensions (sphinx-thebe, sphinx-togglebutton) register their inline
configuration scripts twice; the page then declares ``const THEBE_JS_URL`` twice, a JavaScript
SyntaxError in the reader's console (one copy has filename None, the other ""). We remove repeated
scripts once every extension has registered
its own, before any page is written.
"""

from __future__ import annotations


def _key(js) -> tuple:
    attrs = getattr(js, "attributes", {}) or {}
    return (str(getattr(js, "filename", js) or ""), tuple(sorted((k, str(v)) for k, v in attrs.items())))


def _dedupe(items: list) -> list:
    seen, kept = set(), []
    for item in items:
        key = _key(item[0] if isinstance(item, tuple) else item) + (
            (tuple(sorted((k, str(v)) for k, v in item[1].items())),) if isinstance(item, tuple) else ()
        )
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def _dedupe_registered(app, env, docnames) -> None:
    app.registry.js_files[:] = _dedupe(app.registry.js_files)
    if hasattr(app.builder, "_js_files"):
        app.builder._js_files[:] = _dedupe(app.builder._js_files)


def _dedupe_page(app, pagename, templatename, context, doctree) -> None:
    if context.get("script_files"):
        context["script_files"][:] = _dedupe(context["script_files"])


def setup(app):
    app.connect("env-before-read-docs", _dedupe_registered, priority=999)
    app.connect("html-page-context", _dedupe_page, priority=999)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
