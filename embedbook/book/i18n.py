"""The book's two editions, English and Simplified Chinese, from one source and one execution.

Part of the book's layer, not of the library: the library modules never import it.

Every sentence a reader sees is English in the source and has its Chinese in a gettext catalog,
``chapters/chNN_name/zh.po`` (one per chapter) and ``locale/zh/<page>.po`` (one per other page, ``book.po`` for the rest). The units are:

- the notebooks' Markdown, block by block (:func:`blocks`: paragraphs, list groups, whole fenced
  directives), and the comments of their visible code cells (:func:`comments`);
- every string the Python code shows a reader, written ``_("... {x:.2f} ...").format(x=...)``: one
  template, formatted once per language with the same values, so both editions carry the same numbers;
- the rules' declared words (quantity, outcomes, …), looked up when a box is written (:func:`tr`).

``tools/i18n.py`` extracts the units into the catalogs; ``tests/test_i18n.py`` fails when a unit has no
current Chinese, an entry is obsolete, or a translation uses other glue keys, roles, links, math,
placeholders or numbers than its English (:func:`problems`).

When the book executes (``EMBEDBOOK_LANGS=en,zh``, set by ``embedbook execute`` and the tests), every
displayed figure, table and claim box is published twice, each copy tagged with its language in the
output's metadata; each edition's build keeps its own (:mod:`embedbook.book.sphinxext`). A chapter run by
hand shows one language: ``EMBEDBOOK_LANG`` (default ``en``).
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import html
import io
import os
import re
import string
import tokenize
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

LANGS = ("en", "zh")
META = "embedbook"  # an output's metadata key: {"embedbook": {"lang": "zh"}}
_current: contextvars.ContextVar[str] = contextvars.ContextVar("embedbook_lang", default="")


class MissingTranslation(LookupError):
    """A string shown to a reader has no Chinese in the catalogs."""


# --- which languages ------------------------------------------------------------------------------------


def languages() -> tuple[str, ...]:
    """The languages a run publishes: ``EMBEDBOOK_LANGS`` (``en,zh`` when the book executes), else the one
    in ``EMBEDBOOK_LANG`` (default ``en``)."""
    langs = os.environ.get("EMBEDBOOK_LANGS", "").replace(" ", "")
    chosen = tuple(x for x in langs.split(",") if x) or (os.environ.get("EMBEDBOOK_LANG") or "en",)
    bad = [x for x in chosen if x not in LANGS]
    if bad:
        raise ValueError(f"unknown language {bad} in EMBEDBOOK_LANGS/EMBEDBOOK_LANG; use {', '.join(LANGS)}")
    return chosen


def bilingual() -> bool:
    """Whether this run publishes both editions (the book's execution): then every missing Chinese raises."""
    return len(languages()) > 1


def current() -> str:
    """The language strings are being written in now."""
    return _current.get() or languages()[0]


@contextlib.contextmanager
def language(lang: str) -> Iterator[None]:
    """Write strings in ``lang`` inside the block."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; use {', '.join(LANGS)}")
    token = _current.set(lang)
    try:
        yield
    finally:
        _current.reset(token)


def each(fn: Callable[[], Any]) -> dict[str, Any]:
    """``{lang: fn()}`` for every language this run publishes, ``fn`` called under each."""
    out = {}
    for lang in languages():
        with language(lang):
            out[lang] = fn()
    return out


# --- catalogs ------------------------------------------------------------------------------------------


def locale_dir() -> Path:
    """``locale/zh`` in the book's checkout (the catalogs of the pages that are not chapters; each chapter's is
    ``chapters/chNN_name/zh.po``): beside the package in a clone (an installed wheel has none, and writes
    English only). Raises ``FileNotFoundError`` where there is none."""
    folder = Path(__file__).resolve().parents[2] / "locale" / "zh"
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} not found: the Chinese catalogs come with a clone of the book")
    return folder


def catalog_files(folder: Path | None = None) -> list[Path]:
    """Every Chinese catalog of the checkout: ``locale/zh/*.po`` and each chapter's ``chapters/*/zh.po``."""
    folder = Path(folder or locale_dir())
    return sorted(folder.glob("*.po")) + sorted((folder.parents[1] / "chapters").glob("ch*/zh.po"))


HIDDEN = {"remove-input", "remove-cell"}  # tags of code cells a reader never sees: their comments are no units


@lru_cache(maxsize=1)
def _catalog() -> dict[str, str]:
    try:
        folder = locale_dir()
    except FileNotFoundError:  # the package outside a checkout: English only
        return {}
    return merged(folder)


def catalog() -> dict[str, str]:
    """Every translated msgid of ``locale/zh`` → its Chinese (read once; :func:`reload` reads again)."""
    return _catalog()


def merged(folder: Path) -> dict[str, str]:
    """Every translated msgid of the catalogs (:func:`catalog_files` of ``folder``) → its Chinese."""
    from babel.messages.pofile import read_po

    out: dict[str, str] = {}
    for po in catalog_files(folder):
        with po.open("rb") as f:
            for m in read_po(f):
                if m.id and isinstance(m.string, str) and m.string and "fuzzy" not in m.flags:
                    out[m.id] = m.string
    return out


def reload() -> None:
    """Read the catalogs again (after ``tools/i18n.py`` wrote them)."""
    _catalog.cache_clear()


_seen: dict[str, str] = {}  # every formatted English string this run → its Chinese (figures, tables)


def lookup(text: str) -> str | None:
    """The Chinese of ``text``: a formatted message of this run, else a catalog entry; None if neither."""
    if text in _seen:
        return _seen[text]
    return catalog().get(text)


def _missing(text: str) -> str:
    if bilingual():
        raise MissingTranslation(
            f"no Chinese for {text!r}: add it with `python tools/i18n.py extract` and translate it in "
            f"its catalog (the chapter's zh.po, or locale/zh/) (or, for a string built in code, write it as _('template').format(...))")
    return text  # a run in one language: the English stands in


class Msg(str):
    """A message: a ``str`` in the current language that also carries its English and its Chinese."""

    en: str
    zh: str

    def __new__(cls, en: str, zh: str) -> "Msg":
        obj = super().__new__(cls, zh if current() == "zh" else en)
        obj.en, obj.zh = en, zh
        return obj

    def format(self, *args: Any, **kwargs: Any) -> "Msg":  # type: ignore[override]
        def side(lang: str):
            pick = (lambda v: getattr(v, lang) if isinstance(v, Msg) else v)
            return [pick(a) for a in args], {k: pick(v) for k, v in kwargs.items()}

        a_en, k_en = side("en")
        a_zh, k_zh = side("zh")
        en, zh = self.en.format(*a_en, **k_en), self.zh.format(*a_zh, **k_zh)
        _seen[en] = zh
        return Msg(en, zh)

    def __reduce__(self):  # pickles (and deep-copies) as a Msg
        return (Msg, (self.en, self.zh))


def _(msgid: str) -> Msg:
    """The message ``msgid`` (its English), in the current language; ``.format`` fills both languages."""
    zh = catalog().get(msgid)
    if zh is None:
        zh = _missing(msgid) if "zh" in languages() and needs_translation(msgid) else msgid
    _seen[msgid] = zh
    return Msg(msgid, zh)


def verbatim(text: Any) -> Msg:
    """Data that reads the same in both editions (a model's name, a list of words) as a message, so that a
    figure or table label made of it needs no catalog entry."""
    text = str(text)
    _seen[text] = text
    return Msg(text, text)


def here(text: Any) -> str:
    """``text`` in the language being written: a message's own side; a plain string (a name) as it is."""
    return str(tr(text)) if isinstance(text, Msg) else str(text)


def chain(words: list, joint: Msg) -> str:
    """``words`` joined pairwise by ``joint`` (e.g. ``_("{first} and {last}")``), in the language being written."""
    out = ""
    for w in words:
        out = here(w) if not out else str(joint.format(first=out, last=here(w)))
    return out


def tr(text: Any, lang: str | None = None) -> str:
    """``text`` in ``lang`` (default: the current language): a :class:`Msg`'s own side, else the catalog's
    Chinese of a fixed string (a rule's declared words). Raises :class:`MissingTranslation` in a bilingual
    run when a string that needs Chinese has none."""
    lang = lang or current()
    if isinstance(text, Msg):
        return getattr(text, lang)
    text = "" if text is None else str(text)
    if lang == "en" or not needs_translation(text):
        return text
    found = lookup(text)
    return found if found is not None else _missing(text)


# --- what needs a translation ------------------------------------------------------------------------------

_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)
_CODE = re.compile(r"``[^`]+``|`(?:[^`\n]|\n(?!\s*\n))+`")  # inline code may run over a line break
_ROLE = re.compile(r"\{[\w:-]+\}`[^`]*`")
_URL = re.compile(r"https?://\S+")
_TAG = re.compile(r"<[^>]+>")
_STRUCT = re.compile(r"^\s*(?:`{3,}.*|:{3,}.*|:[\w-]+:.*|\([\w-]+\)=|---+|\|[-:| ]+\||\.\. [\w:-]+::.*)\s*$", re.M)
_WORD = re.compile(r"[A-Za-z]{2,}")


def prose_of(text: str) -> str:
    """``text`` without its math, code, roles, URLs, HTML tags and directive syntax: the words a reader reads."""
    for pattern in (_STRUCT, _MATH, _ROLE, _CODE, _URL, _TAG):
        text = pattern.sub(" ", text)
    return text


def needs_translation(text: str) -> bool:
    """Whether ``text`` has English words outside math, code, roles and markup."""
    return bool(_WORD.search(prose_of(text)))


def sentence_like(text: str) -> bool:
    """Two or more English words of three letters or more: a label that must be translated, where one word
    (a model's name, a data word such as "frog") may stand."""
    return len(re.findall(r"[A-Za-z]{3,}", prose_of(text))) >= 2


_RUN = re.compile(r"(?:[A-Za-z][A-Za-z'’-]*[\s,;()]+){3,}[A-Za-z][A-Za-z'’-]*")
_QUOTED = re.compile(r"“[^”]*”|\"[^\"\n]*\"|‘[^’]*’|「[^」]*」")


def english_left(text: str) -> list[str]:
    """Runs of four or more English words in ``text`` outside math, code, markup and quotation marks (an
    English example sentence is data: “the dog bit the man”): a sentence left untranslated in a Chinese text."""
    return [m.group(0).strip() for m in _RUN.finditer(_QUOTED.sub(" ", prose_of(text)))]


def refuse_english(text: str, what: str) -> None:
    """Raise :class:`MissingTranslation` if a Chinese ``text`` still holds an English sentence."""
    left = english_left(text)
    if left:
        raise MissingTranslation(f"{what} in Chinese still has English: {left[0]!r}; write the sentence as "
                                 "_('template').format(...) and translate it in its catalog (the chapter's zh.po, or locale/zh/)")


# --- units: Markdown blocks, code comments, _() templates ------------------------------------------------

_FENCE = re.compile(r"^\s*(`{3,}|:{3,})")


def blocks(text: str) -> list[str]:
    """Markdown ``text`` cut at blank lines, a fenced block (``` or :::, with everything nested in it)
    kept whole: the units a translation replaces one for one."""
    out, cur, fence = [], [], None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None and not line.strip():
            if cur:
                out.append("\n".join(cur))
                cur = []
            continue
        cur.append(line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and m and line.strip() == fence[0] * len(line.strip()) and \
                len(line.strip()) >= len(fence) and line.strip()[0] == fence[0]:
            fence = None
    if cur:
        out.append("\n".join(cur))
    return out


def translate_markdown(text: str, translate: Callable[[str], str]) -> str:
    """``text`` with each block that needs a translation replaced by ``translate(block)``."""
    return "\n\n".join(translate(b) if needs_translation(b) else b for b in blocks(text))


def _python_lines(code: str) -> str:
    """Cell source with IPython magics and shell lines blanked, so that the tokenizer reads it."""
    return "\n".join("" if re.match(r"\s*[%!]", line) else line for line in code.split("\n"))


def comments(code: str) -> list[tuple[int, int, str]]:
    """Every comment of a code cell that needs translating: (line index, column of '#', its text after '# ')."""
    out = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(_python_lines(code)).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return out
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            body = tok.string[1:].strip()
            if needs_translation(body) and not re.match(r"(noqa|type:|fmt:|pragma)", body):
                out.append((tok.start[0] - 1, tok.start[1], body))
    return out


def translate_comments(code: str, translate: Callable[[str], str]) -> str:
    """``code`` with each comment replaced by ``translate(comment)``."""
    lines = code.split("\n")
    for row, col, body in comments(code):
        lines[row] = lines[row][:col] + "# " + translate(body)
    return "\n".join(lines)


def templates(code: str) -> list[str]:
    """The string literals of every ``_("...")`` call in Python source."""
    try:
        tree = ast.parse(_python_lines(code))
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and \
                isinstance(node.args[0].value, str):
            f = node.func
            if (isinstance(f, ast.Name) and f.id == "_") or (isinstance(f, ast.Attribute) and f.attr == "_"):
                out.append((node.lineno, node.col_offset, node.args[0].value))
    return [t for _, _, t in sorted(out)]


# --- checks of a translation against its English -----------------------------------------------------------

_GLUE = re.compile(r"\{glue(?::\w+)?\}`[^`]*`")
_REFS = re.compile(r"\{(ref|doc|numref|eq|cite|cite:p|cite:t|cite:ps|term|download|py:\w+)\}`([^`]*)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_DIRECTIVE = re.compile(r"^\s*(?:`{3,}|:{3,})\{([\w:-]+)\}", re.M)
_OPTION = re.compile(r"^\s*:(name|label|class|class-container):\s*(.*)$", re.M)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _targets(text: str) -> Counter:
    out = Counter()
    for role, body in _REFS.findall(text):
        m = re.search(r"<([^>]+)>\s*$", body)
        out[(role, (m.group(1) if m else body).strip())] += 1
    return out


def _placeholders(text: str) -> Counter:
    try:
        return Counter((f, s) for _, f, s, _ in string.Formatter().parse(text) if f is not None)
    except ValueError:
        return Counter()


def _numbers(text: str) -> Counter:
    plain = prose_of(_GLUE.sub(" ", text))
    plain = re.sub(r"\{[^{}]*\}", " ", plain)  # format placeholders
    return Counter(n.replace(",", "") for n in _NUMBER.findall(plain))


_GLOSS = re.compile(r"^>\s*\*.*\*\s*$", re.M)  # a quote's English rendering, which the Chinese edition drops


def problems(en: str, zh: str, template: bool = False) -> list[str]:
    """What a translation changes that it must keep: glue keys, cross-references and citations, links,
    math, inline code, directives and their labels, numbers, and (for a Python template) placeholders.
    A quoted article's English rendering (an italic line in a block quote) is left out on both sides."""
    out = []
    if not zh.strip():
        return ["empty translation"]
    en, zh = _GLOSS.sub("", en), _GLOSS.sub("", zh)
    checks = [("glue", lambda t: Counter(_GLUE.findall(t))), ("references", _targets),
              ("links", lambda t: Counter(_LINK.findall(t))), ("math", lambda t: Counter(_MATH.findall(t))),
              ("inline code", lambda t: Counter(_CODE.findall(_ROLE.sub(" ", _MATH.sub(" ", _STRUCT.sub(" ", t)))))),
              ("directives", lambda t: Counter(_DIRECTIVE.findall(t))),
              ("labels", lambda t: Counter(_OPTION.findall(t))), ("numbers", _numbers)]
    if template:
        checks.append(("placeholders", _placeholders))
    for name, of in checks:
        a, b = of(en), of(zh)
        if a != b:
            out.append(f"{name} differ: English has {sorted((a - b).elements())}, Chinese has "
                       f"{sorted((b - a).elements())}")
    return out


# --- figures and tables, published in every language ---------------------------------------------------------


def translate_text(text: str) -> str:
    """A figure's or table's label in Chinese: a message of this run or a catalog entry; one word (a name,
    a data word) may stay as it is; a label of several English words without Chinese raises."""
    if text in _seen:  # formatted this run, even with no word of two letters ("729 q.")
        return _seen[text]
    if not needs_translation(text):
        return text
    found = lookup(text)
    if found is not None:
        return found
    if sentence_like(text):
        return _missing(text)
    return text


def figure_texts(fig) -> list:
    """Every text artist of a matplotlib figure, with the fixed tick labels of its axes."""
    from matplotlib.text import Text

    return [t for t in fig.findobj(Text) if t.get_text()]


@contextlib.contextmanager
def figure_in(fig, lang: str) -> Iterator[None]:
    """The figure's texts in ``lang`` inside the block (restored after)."""
    if lang == "en":
        yield
        return
    saved_texts = [(t, t.get_text()) for t in figure_texts(fig)]
    saved_ticks = []  # tick labels are redrawn from their formatters: translate what each one gives
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for which in ("major", "minor"):
                fmt = getattr(axis, f"get_{which}_formatter")()
                saved_ticks.append((axis, which, fmt))
                getattr(axis, f"set_{which}_formatter")(_translated(fmt))
    mixed = []  # Chinese beside $math$: mathtext draws the words in the label's first font only (DejaVu)
    try:
        for t, text in saved_texts:
            zh = translate_text(text)
            t.set_text(zh)
            if "$" in zh and re.search(r"[\u4e00-\u9fff]", zh):  # its words in the CJK font (Latin too)
                from embedbook.plotting import CJK_FONT

                prop = t.get_fontproperties()
                mixed.append((prop, prop.get_family()))
                prop.set_family([CJK_FONT])
        yield
    finally:
        for prop, family in mixed:
            prop.set_family(family)
        for t, text in saved_texts:
            t.set_text(text)
        for axis, which, fmt in saved_ticks:
            getattr(axis, f"set_{which}_formatter")(fmt)


def _translated(inner):
    """A tick formatter that gives ``inner``'s labels in Chinese (numbers pass through unchanged)."""
    from matplotlib.ticker import Formatter

    class Translated(Formatter):
        def __call__(self, x, pos=None):
            return translate_text(str(inner(x, pos)))

        def format_ticks(self, values):
            return [translate_text(str(v)) for v in inner.format_ticks(values)]

        def set_locs(self, locs):
            inner.set_locs(locs)

        def get_offset(self):
            return inner.get_offset()

        def set_axis(self, axis):
            super().set_axis(axis)
            inner.set_axis(axis)

    return Translated()


_CELL = re.compile(r">([^<>]+)<")


def translate_html(markup: str) -> str:
    """A table's HTML with every cell's text (between tags) in Chinese (see :func:`translate_text`)."""
    def one(m):
        raw = m.group(1)
        text = html.unescape(raw).strip()
        if not text:
            return m.group(0)
        zh = translate_text(text)
        return m.group(0) if zh == text else ">" + html.escape(zh, quote=False) + "<"

    parts = re.split(r"(<style.*?</style>|<script.*?</script>)", markup, flags=re.S)  # CSS is not text
    return "".join(p if p.startswith(("<style", "<script")) else _CELL.sub(one, p) for p in parts)


def publish(bundles: dict[str, tuple[dict, dict]]) -> None:
    """Publish one display output per language, each tagged with its language (bilingual runs)."""
    from IPython.display import publish_display_data

    for lang, (data, metadata) in bundles.items():
        metadata = dict(metadata or {})
        if bilingual():
            metadata[META] = {"lang": lang}
        publish_display_data(data, metadata=metadata)


@contextlib.contextmanager
def _plain_formatting() -> Iterator[None]:
    from IPython import get_ipython

    ip = get_ipython()
    hook = ip.display_formatter.ipython_display_formatter
    was, hook.enabled = hook.enabled, False
    try:
        yield
    finally:
        hook.enabled = was


def _bundle(obj) -> tuple[dict, dict]:
    from IPython.core.formatters import format_display_data

    with _plain_formatting():
        return format_display_data(obj)


def show_each(make: Callable[[], Any]) -> None:
    """Display ``make()`` once per language of the run, each called under its language (a figure or
    table whose labels are written with ``_()``); a matplotlib figure is closed after."""
    bundles = {}
    for lang in languages():
        with language(lang):
            obj = make()
            bundles[lang] = _bundle(obj)
        if type(obj).__name__ == "Figure":
            import matplotlib.pyplot as plt

            plt.close(obj)
    publish(bundles)


def first_sentence(text: str) -> str:
    """The first sentence of an English or a Chinese text."""
    m = re.search(r"。|(?<=[.!?])\s+(?=[A-Z(])", text.strip())
    return text.strip()[: m.end()].strip() if m else text.strip()


@contextlib.contextmanager
def _no_missing_glyphs(what: str) -> Iterator[None]:
    """Raise if matplotlib drew a glyph its font lacks (a box where a character should be)."""
    import logging
    import warnings

    missed: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record):
            if "glyph" in record.getMessage():
                missed.append(record.getMessage())

    handler, log = Catch(), logging.getLogger("matplotlib")
    log.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        missed += [str(w.message) for w in caught if "glyph" in str(w.message).lower()]
    finally:
        log.removeHandler(handler)
    if missed:
        raise RuntimeError(f"{what} draws characters its font lacks: {missed[0]}")


def _show_figure(fig) -> None:
    bundles = {}
    for lang in languages():
        with figure_in(fig, lang), _no_missing_glyphs(f"the {lang} figure"):
            bundles[lang] = _bundle(fig)
    publish(bundles)


def _show_table(obj) -> None:
    data, metadata = _bundle(obj)
    bundles = {}
    for lang in languages():
        if lang == "en":
            bundles[lang] = (data, metadata)
        else:
            bundles[lang] = ({k: (translate_html(v) if k == "text/html" else v) for k, v in data.items()}, metadata)
    publish(bundles)


def _show_markdown(obj) -> None:
    text = obj.data
    publish({lang: ({"text/markdown": tr(text, lang) if lang != "en" else text, "text/plain": text}, {})
             for lang in languages()})


def install() -> None:
    """In a notebook, publish every figure, table and Markdown output in each language of :func:`languages`
    (a no-op outside IPython and in an English-only run)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    ip = get_ipython()
    if ip is None or languages() == ("en",):
        return
    hook = ip.display_formatter.ipython_display_formatter
    from IPython.display import Markdown

    hook.for_type(Markdown, _show_markdown)
    try:
        from matplotlib.figure import Figure

        hook.for_type(Figure, _show_figure)
    except ImportError:
        pass
    try:
        import pandas as pd
        from pandas.io.formats.style import Styler

        hook.for_type(pd.DataFrame, _show_table)
        hook.for_type(Styler, _show_table)
    except ImportError:
        pass
