"""A small Sphinx extension for the book build (listed in ``_config.yml``).

1. Under Jupyter Book some extensions (sphinx-thebe, sphinx-togglebutton) register their inline
   configuration scripts twice (once with filename None, once with ""); the page then declares
   ``const THEBE_JS_URL`` twice, a JavaScript SyntaxError in the reader's console. We remove repeated
   scripts once every extension has registered its own, before any page is written.
2. sphinxcontrib-mermaid loads mermaid as an ES module, which browsers refuse to load from disk
   (``file://``), so a reader who opens the built book locally would see no diagrams. We keep its
   directive but replace its script: our own copy of mermaid (``book/_static/mermaid.min.js``) as a
   classic script, on pages that have a diagram, and a call that renders them.
3. Chinese text must render without relying on the reader's system fonts (a bare Linux browser has
   no CJK font and draws empty boxes). After the build we subset the bundled Noto Sans CJK to the
   characters the pages actually use and write it to ``_static/embedbook-cjk.otf``; the book's CSS
   (``book/_static/embedbook.css``) declares it for the CJK code-point ranges only.
4. Two editions from one execution (:mod:`embedbook.book.i18n`): every notebook is read with the outputs of
   the one execution merged in from the build's jupyter-cache (``embedbook execute`` fills it; both
   builds have ``execute_notebooks: off``), and keeps only the outputs of its edition's language; the
   Chinese edition (``embedbook_language = "zh"``) also replaces each Markdown block and code comment
   by its Chinese from ``locale/zh`` (a missing one is a warning, so ``-W`` fails the build). A header
   button on every page links to the same page in the other edition (``/`` and ``/zh/``).
5. ``{embedbook-api} <module>``: one API page per library module — the module's docstring, a summary
   table (each public function and class, its one-line summary, links to the chapters that use it) and
   the full autodoc entries, with ``[source]`` links (``sphinx.ext.viewcode``).
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")
FONT_NAME = "embedbook-cjk.otf"


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


# useMaxWidth true: a diagram never runs past the text column (its right part would be out of view); the
# diagrams are drawn to fit the column at their natural size, so the shrinking stays small (test_html checks
# the natural widths)
MERMAID_RUN = """document.addEventListener("DOMContentLoaded", () => {
  mermaid.initialize({startOnLoad: false, fontFamily: "embedbook-cjk, trebuchet ms, verdana, arial, sans-serif",
                      themeVariables: {fontSize: "16px"}, flowchart: {useMaxWidth: true},
                      sequence: {useMaxWidth: true}});
  mermaid.run({querySelector: "pre.mermaid"});
});"""


def _mermaid_js(app, pagename, templatename, context, doctree) -> None:
    from sphinxcontrib.mermaid import mermaid as mermaid_node

    if doctree is not None and doctree.next_node(mermaid_node) is not None:
        app.add_js_file("mermaid.min.js", priority=500)  # added inside this event: this page only
        app.add_js_file(None, body=MERMAID_RUN, priority=501)


def _drop_mermaid_module_script(app) -> None:
    for listener in list(app.events.listeners.get("html-page-context", [])):
        handler = listener.handler
        if handler.__name__ == "install_js" and handler.__module__.startswith("sphinxcontrib.mermaid"):
            app.disconnect(listener.id)


def cjk_characters(html_dir: Path) -> set[str]:
    """Every CJK character used in the built pages (text, inline SVG and scripts alike), and in the explorer's
    own texts (``_static/explore.js``; the words of its Chinese table are left to the reader's fonts)."""
    chars: set[str] = set()
    for page in [*Path(html_dir).rglob("*.html"), *Path(html_dir).glob("_static/explore.js")]:
        chars.update(CJK.findall(page.read_text(encoding="utf-8", errors="ignore")))
    return chars


def write_cjk_font(html_dir: Path) -> Path:
    """Subset the bundled CJK font to the characters of the built pages, into ``_static``."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    from embedbook.plotting import cjk_font_file

    font = TTFont(str(cjk_font_file()))
    options = subset.Options()
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(text="".join(sorted(cjk_characters(html_dir))) or "中")
    subsetter.subset(font)
    out = Path(html_dir) / "_static" / FONT_NAME
    font.save(str(out))
    return out


def _write_font(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        write_cjk_font(Path(app.outdir))


def _explore_tables(app, exception) -> None:
    """The tables of the "Explore the space" page (``book/explore.md``) into ``_static/explore``, in a build
    that holds the page (:mod:`embedbook.book.explore`)."""
    if exception is None and app.builder.format == "html" and "book/explore" in app.env.found_docs:
        from embedbook.book import explore

        sizes = explore.export(Path(app.outdir) / "_static" / "explore")
        logger.info("explorer tables: " + ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in sizes.items()))


# --- two editions --------------------------------------------------------------------------------------

ZH_DIR = "zh"  # the Chinese edition's folder inside _build/html


def _cache_dir() -> Path:
    from embedbook import book

    return book.cache_path()


def _executed(nb, docname: str, folder: str = ""):
    """The notebook with the outputs of the book's one execution merged in (from its jupyter-cache), or, where
    ``folder`` is set (``embedbook_executed``: a one-page build), from the notebook of the same name executed
    there, cell by cell id (papermill's injected parameters cell has none of ours)."""
    from jupyter_cache import get_cache

    if folder:
        import nbformat

        path = Path(folder) / f"{Path(docname).name}.ipynb"
        if not path.exists():
            logger.warning(f"{docname}: not executed in {folder}")
            return nb
        ran = {c.get("id"): c for c in nbformat.read(path, as_version=4).cells}
        for cell in nb.cells:
            if cell.cell_type == "code" and cell.get("id") in ran:
                cell.outputs = ran[cell.id].get("outputs", [])
                cell.execution_count = ran[cell.id].get("execution_count")
        return nb

    try:
        return get_cache(str(_cache_dir())).merge_match_into_notebook(nb)[1]
    except KeyError:
        logger.warning(f"{docname}: not in the build's cache ({_cache_dir()}); run `embedbook execute` first, "
                       "which executes every notebook once for both editions")
        return nb


def _keep_outputs(nb, lang: str) -> None:
    from embedbook.book import i18n

    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {})
            tagged = meta.get(i18n.META, {}).get("lang")
            if tagged is None or tagged == lang:
                meta.pop(i18n.META, None)
                kept.append(out)
        cell.outputs = kept


def _translator(docname: str):
    from embedbook.book import i18n

    catalog = i18n.catalog()

    def translate(unit: str) -> str:
        zh = catalog.get(unit)
        if zh is None:
            logger.warning(f"{docname}: no Chinese for {unit[:100]!r}; run `python tools/i18n.py extract` "
                           "and translate it in its catalog (the chapter's zh.po, or locale/zh/)")
            return unit
        return zh

    return translate


def _edition_source(app, docname, source) -> None:
    """Each edition reads a notebook with the one execution's outputs in its own language; the Chinese
    edition reads its Markdown and comments in Chinese."""
    import nbformat

    from embedbook.book import i18n

    lang = app.config.embedbook_language
    path = Path(app.env.doc2path(docname))
    if path.suffix == ".ipynb":
        nb = _executed(nbformat.reads(source[0], as_version=4), docname, app.config.embedbook_executed)
        _keep_outputs(nb, lang)
        if lang == "zh":
            translate = _translator(docname)
            for cell in nb.cells:
                if cell.cell_type == "markdown":
                    cell.source = i18n.translate_markdown(cell.source, translate)
                elif cell.cell_type == "code" and not i18n.HIDDEN & set(cell.metadata.get("tags", [])):
                    cell.source = i18n.translate_comments(cell.source, translate)
        source[0] = nbformat.writes(nb)
        _write_reader(app, docname, nb, lang)
    elif path.suffix == ".md" and lang == "zh":
        source[0] = i18n.translate_markdown(source[0], _translator(docname))


def _page_title(app, docname: str, target: str, lang: str) -> str:
    """A ``{doc}`` target's title as its page shows it (its first heading), for a reader notebook's link."""
    import json

    from embedbook.book import i18n

    base = Path(app.srcdir)
    path = (base / target.lstrip("/")) if target.startswith("/") else (base / Path(docname).parent / target)
    for suffix in (".ipynb", ".md"):
        file = path.with_suffix(suffix)
        if not file.exists():
            continue
        text = file.read_text(encoding="utf-8")
        if suffix == ".ipynb":  # the cell that holds the title, translated as the catalog has it (a whole unit)
            text = next(("".join(c["source"]) for c in json.loads(text)["cells"]
                         if c["cell_type"] == "markdown" and "".join(c["source"]).lstrip().startswith("# ")), "")
        if lang == "zh":
            catalog = i18n.catalog()
            text = i18n.translate_markdown(text, lambda unit: catalog.get(unit, unit))
        heading = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), None)
        if heading:
            return heading
    return Path(target).name


def _write_reader(app, docname: str, nb, lang: str) -> None:
    """The page's reader notebook (CommonMark, its glued values written in: :mod:`embedbook.book.reader`) into
    ``_notebooks/`` of this edition; :func:`_reader_sources` puts it where the download button points."""
    from embedbook import book
    from embedbook.book import claims, reader

    said = None
    if "{articles-said}" in "".join(c.source for c in nb.cells if c.cell_type == "markdown"):
        try:
            chapter = book.chapter_of(Path(docname).name)
            said = claims.articles_said_markdown(chapter, claims.chapter_records(chapter, bool(
                app.config.embedbook_executed)), lang)
        except Exception as error:  # noqa: BLE001 - the notebook then links the page's table instead
            logger.warning(f"{docname}: the reader notebook links the claims table instead of copying it: {error}")
    try:
        reader.write(nb, docname, lang, Path(app.outdir),
                     title=lambda target: _page_title(app, docname, target, lang), articles_said=said)
    except LookupError as error:
        logger.warning(f"no reader notebook: {error}")


def _reader_sources(app, exception) -> None:
    """The download button offers ``_sources/<page>.ipynb``: the reader notebook, not the book's MyST source."""
    import shutil

    from embedbook.book import reader

    if exception is not None or app.builder.format != "html":
        return
    folder = Path(app.outdir) / reader.NOTEBOOK_DIR
    for made in folder.rglob("*.ipynb") if folder.exists() else []:
        target = Path(app.outdir) / "_sources" / made.relative_to(folder)
        if target.exists():
            shutil.copyfile(made, target)


def _colab_button(app, pagename, templatename, context, doctree) -> None:
    """The theme's Colab button opens the page's reader notebook (:func:`embedbook.book.reader.colab_url`), and
    only on a page that runs on Colab (:func:`embedbook.book.reader.runs_on_colab`)."""
    from embedbook.book import reader

    buttons = context.get("header_buttons")
    if not buttons:
        return
    path = Path(app.env.doc2path(pagename)) if pagename in app.env.all_docs else None
    source = path.read_text(encoding="utf-8") if path and path.suffix == ".ipynb" else ""
    keep = reader.runs_on_colab(pagename, source)
    for group in [b for b in buttons if b.get("label") == "launch-buttons"]:
        for button in list(group["buttons"]):
            if button.get("text") == "Colab":
                if keep:
                    button["url"] = reader.colab_url(pagename, app.config.embedbook_language, Path(app.srcdir))
                else:
                    group["buttons"].remove(button)
        if not group["buttons"]:
            buttons.remove(group)


def other_edition(pagename: str, lang: str) -> str:
    """The relative URL of the same page in the other edition (the Chinese one lives in ``zh/``)."""
    up = "../" * pagename.count("/")
    return f"{up}{ZH_DIR}/{pagename}.html" if lang == "en" else f"../{up}{pagename}.html"


SWITCH_JS = """document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("a.btn-language-switch-button").forEach((a) => a.removeAttribute("target"));
});"""


def _language_button(app, pagename, templatename, context, doctree) -> None:
    lang = app.config.embedbook_language
    buttons = context.get("header_buttons")
    if buttons is None:
        return
    buttons.insert(0, {
        "type": "link", "url": other_edition(pagename, lang),
        "text": "中文" if lang == "en" else "English",
        "tooltip": "阅读本页的中文版" if lang == "en" else "Read this page in English",
        "icon": "fas fa-language", "label": "language-switch-button",
    })


# --- API pages -------------------------------------------------------------------------------------


def public_names(module) -> list[str]:
    """A library module's public API: its ``__all__``, else the functions and classes it defines."""
    import inspect

    if hasattr(module, "__all__"):
        return list(module.__all__)
    def defined_here(o) -> bool:  # functions (also those wrapped by functools.lru_cache) and classes
        o = getattr(o, "__wrapped__", o)
        return (inspect.isfunction(o) or inspect.isclass(o)) and getattr(o, "__module__", None) == module.__name__

    return [n for n, o in vars(module).items() if not n.startswith("_") and defined_here(o)]


def summary_line(module, name: str) -> str:
    """The first line of a public name's documentation: its docstring, or for a constant its ``#:`` comment
    (a constant's own docstring is its type's, e.g. "dict() -> new empty dictionary")."""
    import inspect

    obj = getattr(module, name)
    if callable(obj):
        doc = inspect.getdoc(obj) or ""
    else:
        from sphinx.pycode import ModuleAnalyzer

        doc = "\n".join(ModuleAnalyzer.for_module(module.__name__).find_attr_docs().get(("", name), []))
    return doc.strip().split("\n")[0] or f"a constant ({type(obj).__name__}); its value is below"


def _page_label(doc: str) -> str:
    """A chapter page's short name in the API table: ``04`` for its lesson, ``04 audit`` for its audit."""
    stem = doc.rsplit("/", 1)[-1]
    return f"{stem[:2]} audit" if stem.endswith("_audit") else stem[:2]


def chapters_using(topic: str, root: Path) -> dict[str, set[str]]:
    """name → the chapter pages (``chapters/ch04_tying/04_audit``) whose notebook or modules (``measure.py``,
    ``claims.py``) use ``embedbook.<topic>.<name>``."""
    import json

    used: dict[str, set[str]] = {}
    sources = {}
    for nb in sorted((root / "chapters").glob("ch[0-9][0-9]_*/[0-9][0-9]_*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        doc = nb.relative_to(root).with_suffix("").as_posix()
        sources[doc] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        for module in sorted(nb.parent.glob("*.py")):
            if not module.name.startswith("test_"):
                sources[doc] += "\n" + module.read_text(encoding="utf-8")
    for chapter, src in sources.items():
        aliases = {topic}
        aliases |= set(re.findall(rf"from embedbook import (?:[\w ,]*,\s*)?{topic} as (\w+)", src))
        aliases |= set(re.findall(rf"import embedbook\.{topic} as (\w+)", src))
        direct = set()
        for m in re.finditer(rf"from embedbook\.{topic} import ([\w ,()]+)", src):
            direct |= {x.strip() for x in m.group(1).strip("()").split(",")}
        for name in re.findall(rf"\b(?:{'|'.join(map(re.escape, aliases))})\.(\w+)", src):
            used.setdefault(name, set()).add(chapter)
        for name in direct:
            used.setdefault(name, set()).add(chapter)
    return used


def _api_directive():
    import importlib
    import inspect

    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective

    class ApiModule(SphinxDirective):
        required_arguments = 1

        def run(self):
            topic = self.arguments[0]
            module = importlib.import_module(f"embedbook.{topic}")
            root = Path(self.env.srcdir)
            used = chapters_using(topic, root)
            rows = [f".. automodule:: embedbook.{topic}", "   :no-members:", "", ".. list-table::",
                    "   :header-rows: 1", "   :widths: 28 52 20", "", "   * - name", "     - what it does",
                    "     - used in"]
            entries = []
            for name in public_names(module):
                obj = getattr(module, name)
                doc = summary_line(module, name)
                links = ", ".join(f":doc:`{_page_label(doc)} </{doc}>`" for doc in sorted(used.get(name, ())))
                rows += [f"   * - :py:obj:`{name} <embedbook.{topic}.{name}>`", f"     - {doc}", f"     - {links or '—'}"]
                if callable(obj):
                    kind = "autoclass" if inspect.isclass(obj) else "autofunction"
                    entries += ["", f".. {kind}:: embedbook.{topic}.{name}"] + (["   :members:"] if kind == "autoclass" else [])
                else:  # a constant: its ``#:`` comment and value (autodata would print its type's docstring)
                    value = repr(obj)
                    entries += ["", f".. py:data:: embedbook.{topic}.{name}", f"   :type: {type(obj).__name__}"]
                    entries += [f"   :value: {value}"] if len(value) <= 100 else []
                    entries += ["", f"   {doc}"]
            container = nodes.container()
            self.state.nested_parse(StringList(rows + entries), self.content_offset, container)
            return container.children

    return ApiModule


def _articles_said_directive():
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective

    class ArticlesSaid(SphinxDirective):
        """``{articles-said}`` at the end of a lesson: the table of the chapter's claims, each verdict linked to its
        box on the audit page (:func:`embedbook.book.claims.articles_said_markdown`), from the recorded verdicts:
        the full-size ones in the book, the smoke-size ones in a one-page build (``embedbook page``)."""

        def run(self):
            from embedbook import book
            from embedbook.book import claims, i18n

            chapter = book.chapter_of(Path(self.env.docname).name)
            smoke = bool(self.config.embedbook_executed)
            table = claims.articles_said_markdown(chapter, claims.chapter_records(chapter, smoke),
                                                  self.config.embedbook_language)
            container = nodes.container(classes=["articles-said"])
            self.state.nested_parse(StringList(table.splitlines()), self.content_offset, container)
            return [container]

    return ArticlesSaid


def _left_out(app, env, node, contnode):
    """In a one-page build (``embedbook page``), a reference to a page left out reads as that page's title (or
    the reference's own text), unlinked; in the book every reference must resolve."""
    if not app.config.embedbook_executed or node.get("reftype") not in ("doc", "ref", "term"):
        return None
    from docutils import nodes

    from embedbook import book

    target = Path(node.get("reftarget", "")).name
    if node.get("reftype") == "doc" and contnode.astext().lstrip("/") == node.get("reftarget", "").lstrip("/"):
        try:
            title = book.chapter_title(target)
        except ValueError:
            return nodes.inline("", target)
        if app.config.embedbook_language == "zh":  # the title's own unit in the chapter's catalog
            from embedbook.book import i18n

            title = i18n.catalog().get(f"# {title}", f"# {title}")[2:]
        return nodes.inline("", title)
    return nodes.inline("", contnode.astext())


def _counts(app, config) -> None:
    """``{{ n_claims }}`` and ``{{ n_chapters }}`` in the Markdown pages: counted from the register and the table
    of contents, never typed."""
    from embedbook import book
    from embedbook.book import claims

    config.myst_substitutions = {**config.myst_substitutions, "n_claims": len(claims.CLAIMS),
                                 "n_chapters": len(book.chapters(Path(app.srcdir)))}


def setup(app):
    app.connect("config-inited", _counts)
    app.connect("missing-reference", _left_out)
    app.add_directive("embedbook-api", _api_directive())
    app.add_directive("articles-said", _articles_said_directive())
    app.setup_extension("sphinxcontrib.mermaid")
    _drop_mermaid_module_script(app)
    app.connect("html-page-context", _mermaid_js)
    app.connect("env-before-read-docs", _dedupe_registered, priority=999)
    app.connect("html-page-context", _dedupe_page, priority=999)
    app.connect("build-finished", _write_font)
    app.connect("build-finished", _explore_tables)
    app.connect("build-finished", _reader_sources)
    app.add_config_value("embedbook_language", "en", "env")
    app.add_config_value("embedbook_executed", "", "env")  # a one-page build's executed notebooks (embedbook page)
    app.connect("source-read", _edition_source)
    app.connect("html-page-context", _language_button, priority=600)  # after the theme's own buttons
    app.connect("html-page-context", _colab_button, priority=550)  # after the theme's launch buttons (501)
    app.add_config_value("embedbook_pages_branch", "gh-pages", "env")  # where the built site is published
    # the theme opens header links in a new tab; the other edition replaces this page instead
    app.add_js_file(None, body=SWITCH_JS)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
