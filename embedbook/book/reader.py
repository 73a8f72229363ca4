"""Reader notebooks: each chapter notebook as a reader opens it outside the book (Colab, JupyterLab, VS Code),
whose Markdown is plain CommonMark. The build writes one per page and edition (:func:`write`, called by
:mod:`embedbook.book.sphinxext` once the page's outputs are merged in, so the glued values are known) into
``_notebooks/`` beside the HTML, and puts it in place of the page's ``_sources/`` copy, which the page's
download button offers.

What changes from the book's notebook (:func:`reader_notebook`):

* each ``{glue:text}`` role becomes the value the book published, formatted as the page shows it; a cell that
  shows any says so once, at its end ("Figures in this cell are the book's run; your run prints its own below");
* ``{doc}`` cross-references and ``{term}`` glossary entries become links to the published pages
  (``html.baseurl`` in ``_config.yml``), ``{cite:p}`` / ``{cite:t}`` become "(Author year)" / "Author (year)"
  linked to the bibliography page (``book/references.bib``);
* directives (```` ```{admonition} ````, ``{dropdown}``, ...) become quoted blocks with a bold title, ``{mermaid}``
  a ```` ```mermaid ```` block (JupyterLab and GitHub draw it), ``{articles-said}`` the table it shows;
* the Colab cell installs the extras a chapter imports (``[data,plot]``) from the repository named in
  ``_config.yml``; cells the page hides keep their code folded (``jupyter.source_hidden``); outputs are dropped:
  the reader's run writes its own.
"""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path
from typing import Any, Callable

import yaml

from embedbook import book

NOTEBOOK_DIR = "_notebooks"  # under the HTML folder of each edition
EXTRAS = "data,plot"         # what a chapter imports; [book] is the build's (Sphinx, jupyter-book, papermill)
NOTE = {"en": "*Figures in this cell are the book's run; your run prints its own below.*",
        "zh": "*本段中的数字来自本书的运行；你的运行会在下方输出自己的结果。*"}
ARTICLES_SAID = {"en": "The table of this chapter's claims and verdicts is on the [book's page]({url}).",
                 "zh": "本章论断及其结论的表格见[本书的页面]({url})。"}
HIDDEN_TAGS = {"remove-cell", "remove-input", "hide-input", "hide-cell"}
# pages that read what the book's build recorded (the verdicts, the claims' status): outside a checkout there is
# nothing to read, so their reader notebooks keep the book's outputs, say so first, and get no Colab button
READS_THE_BUILD = {"chapters/ch16_verdicts/16_verdicts", "book/status", "book/claims"}
READS_NOTE = {"en": "*This page reads the verdicts the book's build recorded; outside a clone of the repository in "
                    "which the book was built there is nothing to read. The outputs below are the book's run, as "
                    "published at [its page]({url}).*",
              "zh": "*本页读取本书构建时记录的结论；在构建过本书的仓库克隆之外没有可读取的记录。下方的输出来自本书的运行，"
                    "与[本书的页面]({url})相同。*"}

_ROLE = re.compile(r"\{(glue:text|glue|doc|ref|term|cite:p|cite:t|cite|numref|eq|download)\}`([^`]*)`")
_EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|:{3,})\s*\{(?P<name>[^}]+)\}[ \t]*(?P<arg>.*)$")
_LABEL = re.compile(r"^\([\w\-.:]+\)=\s*$")
_OPTION = re.compile(r"^:[\w\-]+:")


def config(base: Path | None = None) -> dict:
    """The book's ``_config.yml``."""
    base = base or book.root()
    return yaml.safe_load((base / "_config.yml").read_text(encoding="utf-8"))


def published_url(base: Path | None = None) -> str:
    """Where the book is published (``html.baseurl`` in ``_config.yml``), ending in ``/``."""
    url = config(base).get("html", {}).get("baseurl")
    if not url:
        raise ValueError("no html.baseurl in _config.yml: set it to the address the book is published at")
    return url.rstrip("/") + "/"


def repository_url(base: Path | None = None) -> str:
    """The repository (``repository.url`` in ``_config.yml``): the one place it is named."""
    return config(base)["repository"]["url"].rstrip("/")


def install_cell_source(base: Path | None = None) -> str:
    """The first code cell of every chapter notebook: on Colab, install the package with the extras a chapter
    imports, from the repository named in ``_config.yml``; elsewhere, nothing."""
    return ("# Colab only: install the book's package and data (does nothing elsewhere)\n"
            "import sys\n"
            "if \"google.colab\" in sys.modules:\n"
            f"    %pip install -q \"embedbook[{EXTRAS}] @ git+{repository_url(base)}\"")


@functools.lru_cache(maxsize=4)
def _bibliography(path: str) -> dict[str, tuple[str, str]]:
    """``key -> (authors as cited, year)`` from the book's BibTeX file."""
    from pybtex.database import parse_file

    out = {}
    for key, entry in parse_file(path).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        last = [" ".join(p.last_names).replace("{", "").replace("}", "") for p in people]
        others = any(str(p).lower() == "others" for p in people)
        last = [n for n in last if n.lower() != "others"]
        if not last:
            names = entry.fields.get("institution", entry.fields.get("organization", key)).strip("{}")
        elif len(last) == 1 and not others:
            names = last[0]
        elif len(last) == 2 and not others:
            names = f"{last[0]} and {last[1]}"
        else:
            names = f"{last[0]} et al."
        out[key] = (names, entry.fields.get("year", "n.d."))
    return out


def glued_values(nb: dict) -> dict[str, str]:
    """``name -> text/plain`` of every glue record in an executed notebook (one language's outputs)."""
    values = {}
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            meta = out.get("metadata", {}).get("scrapbook")
            if not meta:
                continue
            plain = out.get("data", {}).get(meta.get("mime_prefix", book.GLUE_PREFIX) + "text/plain")
            if plain is not None:
                values[meta["name"]] = plain if isinstance(plain, str) else "".join(plain)
    return values


def glue_text(value: str, spec: str) -> str:
    """A glued value as ``{glue:text}`` shows it: myst-nb's ``format_plain_text`` (the literal's value, formatted by
    ``spec`` whose last character picks the type), copied so that no Sphinx is loaded."""
    from ast import literal_eval

    try:
        value = literal_eval(value)
    except (SyntaxError, ValueError):
        pass
    if spec == "":
        return str(value)
    kind = spec[-1]
    if kind == "s":
        value = str(value)
    elif kind in ("b", "c", "d", "o", "x", "X"):
        value = int(value)
    elif kind in ("e", "E", "f", "F", "g", "G", "n", "%"):
        value = float(value)
    return format(value, spec)


class Converter:
    """MyST Markdown of one page, in one edition, to CommonMark."""

    def __init__(self, docname: str, lang: str, glued: dict[str, str], base: Path | None = None,
                 title: Callable[[str], str] | None = None, articles_said: str | None = None):
        self.base = base or book.root()
        self.docname, self.lang, self.glued = docname, lang, glued
        self.site = published_url(self.base) + ("zh/" if lang == "zh" else "")
        self.bib = _bibliography(str(self.base / config(self.base)["bibtex_bibfiles"][0]))
        self.title = title or (lambda target: target.rsplit("/", 1)[-1])
        self.articles_said = articles_said
        self.missing: list[str] = []

    def page_url(self, target: str) -> str:
        """The published URL of ``{doc}`` target ``target`` (relative to this page, or from the root with ``/``)."""
        if target.startswith("/"):
            path = target.lstrip("/")
        else:
            parts = Path(self.docname).parent.joinpath(target).as_posix().split("/")
            stack: list[str] = []
            for p in parts:
                if p == "..":
                    stack.pop()
                elif p not in (".", ""):
                    stack.append(p)
            path = "/".join(stack)
        return f"{self.site}{path}.html"

    def ref_url(self, label: str) -> str:
        """A ``{ref}`` label's published URL: a claim's box is on its chapter's audit page; another label, this page."""
        claim = re.fullmatch(r"claim-(c\d+)", label)
        if claim:
            try:
                from embedbook.book import claims

                chapter = claims.claim(claim.group(1).upper()).chapter
                audit = book.audit_name(chapter, self.base) or chapter
                return f"{self.site}{book.chapter_path(audit, self.base).relative_to(self.base).with_suffix('').as_posix()}.html#{label}"
            except (KeyError, LookupError, ValueError, FileNotFoundError):
                pass
        return f"{self.site}{self.docname}.html#{label}"

    def _role(self, m: re.Match) -> str:
        role, body = m.group(1), m.group(2)
        explicit = _EXPLICIT.match(body)
        text, target = (explicit.group(1), explicit.group(2)) if explicit else (None, body)
        if role in ("glue:text", "glue"):
            name, spec = target.rsplit(":", 1) if ":" in target else (target, "s")
            if name not in self.glued:
                self.missing.append(name)
                return "…"
            self.shown = True
            return glue_text(self.glued[name], spec)
        if role == "doc":
            return f"[{text or self.title(target)}]({self.page_url(target)})"
        if role == "term":
            slug = re.sub(r"[^\w]+", "-", target.lower()).strip("-")
            return f"[{text or target}]({self.site}book/glossary.html#term-{slug})"
        if role.startswith("cite"):
            url = f"{self.site}book/bibliography.html"
            cites = []
            for key in [k.strip() for k in target.split(",") if k.strip()]:
                names, year = self.bib.get(key, (key, ""))
                cites.append(f"[{names} ({year})]({url})" if role == "cite:t" else f"[{names} {year}]({url})")
            return "; ".join(cites) if role == "cite:t" else "(" + "; ".join(cites) + ")"
        if role == "ref":
            return f"[{text or target}]({self.ref_url(target)})"
        return text or target  # numref, eq, download: their words

    def inline(self, text: str) -> str:
        return _ROLE.sub(self._role, text)

    def _directive(self, name: str, arg: str, body: list[str]) -> list[str]:
        content = [line for line in body if not _OPTION.match(line)]
        while content and not content[0].strip():
            content.pop(0)
        if name == "mermaid":
            return ["```mermaid", *content, "```"]
        if name == "articles-said":
            table = self.articles_said or ARTICLES_SAID[self.lang].format(url=f"{self.site}{self.docname}.html")
            return self.block(table.splitlines())
        if name in ("code-block", "code", "code-cell", "sourcecode"):
            return [f"```{arg.strip()}", *content, "```"]
        if name in ("math",):
            return ["$$", *content, "$$"]
        title = arg.strip() or {"note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important",
                                "seealso": "See also", "hint": "Hint"}.get(name, "")
        inner = self.block(content)
        quoted = ([f"> **{self.inline(title)}**", ">"] if title else []) + [f"> {line}".rstrip() for line in inner]
        return quoted

    def block(self, lines: list[str]) -> list[str]:
        """Convert a Markdown block (its lines): directives first (nested ones inside), then roles."""
        out: list[str] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            m = _FENCE.match(line)
            if m:
                fence = m.group("fence")
                close = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
                j = i + 1
                while j < len(lines) and not close.match(lines[j]):
                    j += 1
                out += self._directive(m.group("name").strip(), m.group("arg"), lines[i + 1:j])
                i = j + 1
                continue
            if _LABEL.match(line):
                i += 1
                continue
            if re.match(r"^ {0,3}(`{3,}|~{3,})", line):  # a plain code block: copied as it is
                fence = re.match(r"^ {0,3}(`{3,}|~{3,})", line).group(1)
                j = i + 1
                while j < len(lines) and not lines[j].lstrip().startswith(fence):
                    j += 1
                out += lines[i:j + 1]
                i = j + 1
                continue
            out.append(self.inline(line))
            i += 1
        return out

    def markdown(self, source: str) -> str:
        """One Markdown cell in CommonMark; a cell that shows glued values says so once, at its end."""
        self.shown = False
        text = "\n".join(self.block(source.split("\n")))
        if self.shown:
            text = text.rstrip() + "\n\n" + NOTE[self.lang]
        return text


def reader_notebook(nb: dict, docname: str, lang: str, base: Path | None = None,
                    title: Callable[[str], str] | None = None, articles_said: str | None = None) -> dict:
    """The reader's copy of ``nb`` (an executed notebook in edition ``lang``, as a dict): CommonMark Markdown with
    the glued values written in, the install cell from ``_config.yml``, no outputs, hidden cells folded."""
    glued = glued_values(nb)
    convert = Converter(docname, lang, glued, base, title, articles_said)
    out = copy.deepcopy(nb)
    installed = False
    keep = docname in READS_THE_BUILD
    for cell in out["cells"]:
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            cell["source"] = convert.markdown(source)
            cell.get("metadata", {}).pop("tags", None)
        elif cell["cell_type"] == "code":
            if not keep:
                cell["outputs"], cell["execution_count"] = [], None
            if not installed and "google.colab" in source:
                cell["source"], installed = install_cell_source(base), True
            tags = set(cell.get("metadata", {}).get("tags", []))
            if tags & HIDDEN_TAGS:
                cell.setdefault("metadata", {}).setdefault("jupyter", {})["source_hidden"] = True
    if convert.missing:
        raise LookupError(f"{docname}: glued values missing from its executed notebook: "
                          f"{sorted(set(convert.missing))}; run the notebook (embedbook execute) before the build")
    if keep:
        note = READS_NOTE[lang].format(url=f"{convert.site}{docname}.html")
        out["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": note})
    out.setdefault("metadata", {})["embedbook"] = {"reader": True, "lang": lang, "page": docname}
    return out


def runs_on_colab(docname: str, source: str) -> bool:
    """Whether a page gets a Colab button: its notebook installs itself there (its Colab cell) and reads nothing
    the book's build recorded."""
    return "google.colab" in source and docname not in READS_THE_BUILD


def colab_url(docname: str, lang: str, base: Path | None = None) -> str:
    """Colab's address of a page's reader notebook: the built site's ``_notebooks/`` as published on the
    repository's pages branch (``embedbook_pages_branch`` in ``_config.yml``)."""
    cfg = config(base)
    repo = repository_url(base).removeprefix("https://github.com/")
    branch = cfg["sphinx"]["config"].get("embedbook_pages_branch", "gh-pages")
    colab = cfg.get("launch_buttons", {}).get("colab_url", "https://colab.research.google.com").rstrip("/")
    return f"{colab}/github/{repo}/blob/{branch}/{'zh/' if lang == 'zh' else ''}{NOTEBOOK_DIR}/{docname}.ipynb"


def path_for(html_dir: Path, docname: str) -> Path:
    """Where a page's reader notebook goes in a built edition."""
    return Path(html_dir) / NOTEBOOK_DIR / f"{docname}.ipynb"


def write(nb: Any, docname: str, lang: str, html_dir: Path, **kwargs) -> Path:
    """Write the reader notebook of ``nb`` (an nbformat node or a dict) under ``html_dir``; return its path."""
    import json

    as_dict = json.loads(json.dumps(nb))
    reader = reader_notebook(as_dict, docname, lang, **kwargs)
    path = path_for(html_dir, docname)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(reader, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


__all__ = ["Converter", "reader_notebook", "write", "glued_values", "glue_text", "install_cell_source",
           "published_url", "repository_url", "path_for", "runs_on_colab", "colab_url", "NOTEBOOK_DIR", "EXTRAS"]
