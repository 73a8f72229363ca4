"""The register of the two source articles' claims (C01, C02, …), their declared rules and their verdicts.

Part of the book's layer, not of the library: the library modules never import it.

- :class:`Claim` — one checkable statement: the article's words (a verbatim Chinese quote), an English
  rendering of them, a paraphrase, the chapter that settles it.
- :class:`Rule` — how a claim is decided, declared *before* measuring: the quantity, the thresholds,
  the seeds, and the condition for each outcome, with a realistic example of the figures behind each
  outcome (``tests/test_rules.py`` drives every rule through every outcome it declares).
- :class:`Literature` — what a literature verdict is decided from: :class:`Source` records (a paper's
  finding, where it says so, the tags it supports or contradicts), the :class:`Search` that found them
  and the strongest evidence against. A rule declares ``literature=`` and ``counted=`` (figure → tag);
  :func:`judge` counts those figures from the sources and refuses them typed, and the rule's examples
  are source sets (:func:`source_set`).
- :func:`judge` — the only way to reach a :class:`Verdict`: the registered rule decides from the
  figures a check measured; the check writes the evidence for the outcome the rule gave.
- :func:`show` — a chapter's claim box; it also glues the verdict and its figures and records the
  verdict for the closing verdicts chapter (:func:`record_verdict`).

Each chapter declares its claims, rules and checks in its own claims module, ``chapters/chNN_name/claims.py``
(:mod:`embedbook.chapters`), beside the measurements they read (``measure.py``).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import os
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from embedbook import book
from embedbook.book import i18n
from embedbook.book.i18n import _, tr

CONFIRMED = "confirmed"
CORRECTED = "confirmed with a correction"
REFUTED = "refuted"
INCONCLUSIVE = "inconclusive here"
NOT_HERE = "cannot be reproduced here"
PENDING = "pending"
VERDICTS = (CONFIRMED, CORRECTED, REFUTED, INCONCLUSIVE, NOT_HERE, PENDING)
# The kind of evidence that decides a claim (a rule's ``basis``):
MEASURED = "measured"  # a measurement on real data, models or hardware
CONSTRUCTED = "constructed"  # a demonstration on data built so that the effect can appear
ARITHMETIC = "arithmetic"  # arithmetic or a definition: counting, algebra, an identity checked in code
LITERATURE = "literature"  # published figures decide; a miniature here only illustrates
BASES = (MEASURED, CONSTRUCTED, ARITHMETIC, LITERATURE)
BASIS_WORDS = {  # the English; basis_words() gives either language
    MEASURED: "measured on real data",
    CONSTRUCTED: "a constructed demonstration",
    ARITHMETIC: "arithmetic or a definition",
    LITERATURE: "the literature",
}


def basis_words(basis: str) -> str:
    """What kind of evidence decided, in a few words, in the current language."""
    return {MEASURED: _("measured on real data"), CONSTRUCTED: _("a constructed demonstration"),
            ARITHMETIC: _("arithmetic or a definition"), LITERATURE: _("the literature")}[basis]


def basis_line(basis: str) -> str:
    """What kind of evidence decided, as the protocol's sentence, in the current language."""
    return {
        MEASURED: _("a measurement on real data, models or hardware decides."),
        CONSTRUCTED: _("a constructed demonstration decides: data built so that the effect can appear; it shows "
                       "the mechanism is possible, not how strong it is in real training."),
        ARITHMETIC: _("arithmetic or a definition decides: counting, algebra or an identity checked in code."),
        LITERATURE: _("published sources decide (papers, model cards, configurations, each cited); any "
                      "measurement here illustrates them."),
    }[basis]


def verdict_word(verdict: str) -> str:
    """A verdict as a rule's outcome names it ("confirmed with a correction"), in the current language."""
    return {CONFIRMED: _("confirmed"), CORRECTED: _("confirmed with a correction"), REFUTED: _("refuted"),
            INCONCLUSIVE: _("inconclusive here"), NOT_HERE: _("cannot be reproduced here"),
            PENDING: _("pending")}[verdict]


def verdict_name(verdict: str) -> str:
    """A verdict as a box heads it ("Confirmed with a correction"), in the current language."""
    word = str(verdict_word(verdict))
    return word[:1].upper() + word[1:]


LONG = "000"  # seeds/000_a20c4a869fa23ada.txt, 《Embedding层：从离散符号到语义空间的第一步》
SHORT = "004"  # seeds/004_c963df5ff42eda00.txt, 《什么是嵌入层？文字是怎么变成向量的》
ARTICLE_NAMES = {  # how a box names its article: the title, in the article's own words
    LONG: "《Embedding层：从离散符号到语义空间的第一步》",
    SHORT: "《什么是嵌入层？文字是怎么变成向量的》",
}


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a source article, declared in the claims module of the chapter that settles
    it (``chapters/chNN_name/claims.py``, with :func:`declare`)."""

    id: str
    article: str
    section: str
    quote: str
    english: str
    paraphrase: str
    module: str  # the library module the claim is about
    chapter: str = ""  # the chapter that settles it: set by declare() from the declaring module


CHAPTERS_PACKAGE = "embedbook.chapters"


def chapter_of_module(module: str) -> str:
    """The chapter a module belongs to: ``embedbook.chapters.ch04_tying.claims`` → ``"04_tying"``."""
    parts = module.split(".")
    if len(parts) < 3 or ".".join(parts[:2]) != CHAPTERS_PACKAGE or not parts[2].startswith("ch"):
        raise ValueError(f"{module} is not a chapter's module ({CHAPTERS_PACKAGE}.chNN_name...): claims are declared "
                         "in the claims module of the chapter that settles them")
    return parts[2][2:]


class Register(Mapping[str, Claim]):
    """The register of claims, by id in id order: every chapter's declared claims (:func:`declare`).

    Reading it imports every chapter's ``claims`` module once (they declare their entries when imported), so
    the register is complete however it is first reached; the count of claims is ``len(CLAIMS)``, never typed.
    """

    def __init__(self) -> None:
        self._claims: dict[str, Claim] = {}
        self._state = "empty"  # -> "loading" -> "loaded"

    def add(self, c: Claim) -> None:
        old = self._claims.get(c.id)
        if old is not None and old.chapter != c.chapter:
            raise ValueError(f"claim {c.id} is declared twice: in chapter {old.chapter} and in {c.chapter}")
        self._claims[c.id] = c

    def _all(self) -> dict[str, Claim]:
        if self._state == "empty":
            self._state = "loading"  # a chapter's module that reads the register while loading sees what is declared so far
            try:
                for name in chapter_packages():
                    try:
                        importlib.import_module(f"{CHAPTERS_PACKAGE}.{name}.claims")
                    except ModuleNotFoundError as err:
                        if err.name != f"{CHAPTERS_PACKAGE}.{name}.claims":
                            raise
                self._claims = dict(sorted(self._claims.items()))
                self._state = "loaded"
            finally:
                if self._state == "loading":
                    self._state = "empty"
        return self._claims

    def __getitem__(self, cid: str) -> Claim:
        return self._all()[cid]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def chapter_packages() -> list[str]:
    """The chapters' packages (``ch01_tokens``, …), in order: the folders of ``chapters/`` (installed as
    :mod:`embedbook.chapters`)."""
    import pkgutil

    package = importlib.import_module(CHAPTERS_PACKAGE)
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.ispkg and m.name.startswith("ch"))


CLAIMS = Register()


def declare(module: str, *entries: Claim) -> None:
    """Declare the claims a chapter settles: ``claims.declare(__name__, Claim(...), ...)`` in its claims module."""
    chapter = chapter_of_module(module)
    for c in entries:
        CLAIMS.add(dataclasses.replace(c, chapter=chapter))


def claim(cid: str) -> Claim:
    """Return the claim with id ``cid`` (``"C01"``, ``"C02"``, …); an unknown id raises ``KeyError``."""
    try:
        return CLAIMS[cid]
    except (KeyError, TypeError):
        raise KeyError(f"unknown claim id {cid!r}: ids run from C01 to C{len(CLAIMS):02d}") from None


# --- rules -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """How claim ``claim_id`` is decided, declared before anything is measured.

    Attributes:
        quantity: what is measured, in words (with units).
        inputs: the figures the rule reads, name → meaning; a check must measure every one.
        outcomes: verdict → the condition that gives it, in words, in the order they are tried.
        examples: verdict → realistic figures that give that verdict (the rule test runs them all).
        thresholds: named constants the conditions use (fixed here, not tuned on the result).
        seeds: how many seeds the measurement uses at full size (1 for deterministic arithmetic).
        basis: the kind of evidence that decides, one of :data:`BASES`: ``"measured"`` (a measurement
            on real data, models or hardware), ``"constructed"`` (a demonstration on data built so the
            effect can appear), ``"arithmetic"`` (counting, algebra or a definition checked in code) or
            ``"literature"`` (a cited paper's figures decide; our miniature is an illustration).
            No default: every rule says which.
        full_size_only: True where a smoke-size run is too small to reach the full-size verdict;
            otherwise a test checks that the smoke and full verdicts agree.
        timed: True when a figure comes from wall-clock timing (``tests/test_load.py`` then checks
            that a busy machine gives the same verdict).
        replication: the held-out set the verdict is re-decided on, declared with the rule (other seeds;
            another sample, word list or vocabulary cut). :func:`run` then needs ``held_out=``; where the two
            verdicts disagree the claim is "inconclusive here".
        decide: ``(figures, thresholds) -> verdict``.
    """

    claim_id: str
    quantity: str
    inputs: Mapping[str, str]
    outcomes: Mapping[str, str]
    examples: Mapping[str, Mapping[str, Any]]
    decide: Callable[[Mapping[str, Any], Mapping[str, float]], str]
    thresholds: Mapping[str, float] = field(default_factory=dict)
    seeds: int = 1
    basis: str = ""
    full_size_only: bool = False
    timed: bool = False
    replication: str = ""
    # A literature rule: the sources it is decided from, and which of its inputs are counted from them
    # (figure → tag, or → (tag, stance)); judge() counts them, a check never types them.
    literature: Literature | None = None
    counted: Mapping[str, Any] = field(default_factory=dict)
    example_sources: Mapping[str, SourceSet] = field(default_factory=dict)  # outcome → its source set

    def __call__(self, figures: Mapping[str, Any]) -> str:
        """The verdict these figures give; a missing figure or an undeclared outcome raises."""
        missing = sorted(set(self.inputs) - set(figures))
        if missing:
            raise KeyError(f"{self.claim_id}'s rule needs the figures {missing}; the check measured {sorted(figures)}")
        for name in self.inputs:
            value = figures[name]
            if isinstance(value, float) and math.isnan(value):
                raise ValueError(f"{self.claim_id}: figure {name!r} is NaN; a rule cannot decide on it")
        verdict = self.decide(figures, self.thresholds)
        if verdict not in self.outcomes:
            raise ValueError(f"{self.claim_id}'s rule returned {verdict!r}, which it does not declare: {list(self.outcomes)}")
        return verdict

    def markdown(self, lang: str | None = None) -> str:
        """The declared rule as MyST markdown, for the claim box, in ``lang`` (default: the current language)."""
        lang = lang or i18n.current()
        with i18n.language(lang):
            lines = [_("*Measured:* {quantity}.").format(quantity=tr(self.quantity))]
            if self.thresholds:
                lines.append(_("*Thresholds:* {values}.").format(
                    values=", ".join(f"`{k}` = {_fmt(v)}" for k, v in self.thresholds.items())))
            lines.append(_("*Basis:* {line}").format(line=basis_line(self.basis)))
            if self.seeds > 1:
                lines.append(_("*Seeds:* {n}.").format(n=self.seeds))
            if self.replication:
                lines.append(_("*Held-out replication:* {held_out}; where its verdict differs, inconclusive here.").format(
                    held_out=tr(self.replication)))
            lines.append(_("*Outcomes:*"))
            lines += [_("- **{verdict}** if {condition}").format(verdict=verdict_word(v), condition=tr(cond))
                      for v, cond in self.outcomes.items()]
            return "\n".join(lines)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value != 0 and abs(value) < 1e-3:  # a power of ten, not 0.00001 or 1e-05, in a reader's claim box
            mantissa, exponent = f"{value:.2e}".split("e")
            mantissa = mantissa.rstrip("0").rstrip(".")
            return f"${mantissa} \\times 10^{{{int(exponent)}}}$" if mantissa not in ("1", "-1") else \
                f"${'-' if value < 0 else ''}10^{{{int(exponent)}}}$"
        return f"{value:g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


_RULES: dict[str, Rule] = {}
_CHECKS: dict[str, Callable[[Any], "Verdict"]] = {}


def rule(cid: str, **declared: Any) -> Callable[[Callable], Rule]:
    """Declare claim ``cid``'s rule; decorate its ``decide(figures, thresholds) -> verdict`` function.

    Keyword arguments are the :class:`Rule` fields (``quantity``, ``inputs``, ``outcomes``,
    ``examples``, ``thresholds``, ``seeds``, ``basis``, ``full_size_only``, ``timed``). Raises
    ``ValueError`` for an outcome that is not a verdict, fewer than two outcomes, an outcome without an
    example, or a second rule for the same claim.
    """
    claim(cid)

    def register(decide: Callable) -> Rule:
        r = Rule(claim_id=cid, decide=decide, **_resolve_sources(cid, declared))
        bad = [v for v in r.outcomes if v not in VERDICTS or v == PENDING]
        if bad:
            raise ValueError(f"{cid}: {bad} are not verdicts; use {VERDICTS[:-1]}")
        if len(r.outcomes) < 2:
            raise ValueError(f"{cid}: a rule needs at least two outcomes, or the verdict is typed, not decided")
        if set(r.examples) != set(r.outcomes):
            raise ValueError(f"{cid}: give one example of figures for each outcome {list(r.outcomes)}")
        if r.basis not in BASES:
            raise ValueError(f"{cid}: basis must be one of {BASES} (the kind of evidence that decides), got {r.basis!r}")
        if cid in _RULES and _RULES[cid].decide.__qualname__ != decide.__qualname__:
            raise ValueError(f"claim {cid} already has a rule")
        _RULES[cid] = r
        return r

    return register


def claims_module(cid: str) -> str:
    """The module holding claim ``cid``'s register entry, rule and check: ``embedbook.chapters.chNN_name.claims``."""
    return f"{CHAPTERS_PACKAGE}.ch{claim(cid).chapter}.claims"


def _load(cid: str) -> None:
    if cid not in _RULES or cid not in _CHECKS:
        try:
            importlib.import_module(claims_module(cid))
        except ModuleNotFoundError as err:
            if err.name != claims_module(cid):
                raise


def rule_of(cid: str) -> Rule | None:
    """Claim ``cid``'s declared rule, or None if none is written yet."""
    _load(cid)
    return _RULES.get(cid)


# --- literature: a verdict decided from a list of sources --------------------------------------------------

SUPPORTS, CONTRADICTS = "supports", "contradicts"


@dataclass(frozen=True)
class Source:
    """One published finding: what a paper reports and where it says so.

    Attributes:
        cite: the paper's key in ``book/references.bib``.
        finding: what it reports, in a sentence (the box prints it).
        where: where it says so: section, table, figure or page of the version read.
        supports: tags of the statements this finding supports (e.g. ``"gain_from_tying"``).
        contradicts: tags of the statements it contradicts.
    """

    cite: str
    finding: str
    where: str
    supports: tuple[str, ...] = ()
    contradicts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("cite", "finding", "where"):
            if not str(getattr(self, name)).strip():
                raise ValueError(f"a Source needs its {name}: the paper's bib key, what it reports and where")
        if isinstance(self.supports, str) or isinstance(self.contradicts, str):
            raise TypeError(f"{self.cite}: supports and contradicts are tuples of tags, e.g. ('gain_from_tying',)")
        if not (self.supports or self.contradicts):
            raise ValueError(f"{self.cite}: a Source bears on at least one tag (supports= or contradicts=)")
        both = set(self.supports) & set(self.contradicts)
        if both:
            raise ValueError(f"{self.cite}: a finding cannot both support and contradict {sorted(both)}")

    def bears(self, tag: str, stance: str = SUPPORTS) -> bool:
        """Whether this finding takes ``stance`` (:data:`SUPPORTS` or :data:`CONTRADICTS`) on ``tag``."""
        if stance not in (SUPPORTS, CONTRADICTS):
            raise ValueError(f"stance must be {SUPPORTS!r} or {CONTRADICTS!r}, got {stance!r}")
        return tag in (self.supports if stance == SUPPORTS else self.contradicts)


@dataclass(frozen=True)
class Search:
    """The search behind a source list: the queries, where they were run, and when."""

    queries: tuple[str, ...]
    corpora: tuple[str, ...]
    date: str  # ISO date of the search

    def __post_init__(self) -> None:
        if not self.queries or not self.corpora or not self.date:
            raise ValueError("a Search records its queries, the corpora searched and the date")

    def notes(self) -> list[str]:
        """The words of this record a reader reads as prose: a query that is a note ("no new search: …")
        and a corpus named in words; the rest (queries as typed, corpus names) stays as it was searched."""
        return [q for q in self.queries if q.startswith("no new search")] + [c for c in self.corpora if " " in c]

    def markdown(self) -> str:
        def query(q: str) -> str:
            if q in self.notes():
                return f"“{tr(q)}”"
            return f"“{q}”" if i18n.current() == "en" else f"`{q}`"  # as typed, in English

        return _("{n} queries ({queries}) in {corpora}, {date}").format(
            n=len(self.queries), queries="; ".join(query(q) for q in self.queries),
            corpora=", ".join(tr(c) if c in self.notes() else c for c in self.corpora), date=self.date)


def _counted(spec: str | tuple[str, str]) -> tuple[str, str]:
    """A counted figure's ``(tag, stance)``; a bare tag means the sources that support it."""
    tag, stance = (spec, SUPPORTS) if isinstance(spec, str) else spec
    if stance not in (SUPPORTS, CONTRADICTS):
        raise ValueError(f"stance must be {SUPPORTS!r} or {CONTRADICTS!r}, got {stance!r}")
    return tag, stance


def tally(sources: tuple[Source, ...], counted: Mapping[str, str | tuple[str, str]]) -> dict[str, int]:
    """Each counted figure: how many of ``sources`` take its stance on its tag (``figure → tag`` or
    ``figure → (tag, stance)``)."""
    out = {}
    for name, spec in counted.items():
        tag, stance = _counted(spec)
        out[name] = sum(s.bears(tag, stance) for s in sources)
    return out


@dataclass(frozen=True)
class Literature:
    """What a literature verdict is decided from: the sources, the search that found them, and the
    strongest evidence against the verdict they give."""

    sources: tuple[Source, ...]
    search: Search
    strongest_against: str

    def __post_init__(self) -> None:
        if not self.sources:
            raise ValueError("a Literature record lists at least one source")
        if not self.strongest_against.strip():
            raise ValueError("a Literature record names the strongest evidence against its reading")

    def count(self, tag: str, stance: str = SUPPORTS) -> int:
        """How many sources take ``stance`` on ``tag``."""
        return sum(s.bears(tag, stance) for s in self.sources)

    def figures(self, counted: Mapping[str, str | tuple[str, str]]) -> dict[str, int]:
        """The counted figures a rule reads (see :func:`tally`)."""
        return tally(self.sources, counted)

    def cites(self) -> list[str]:
        """The bib keys of the sources, in order, each once."""
        return list(dict.fromkeys(s.cite for s in self.sources))

    def markdown(self, counted: Mapping[str, str | tuple[str, str]] | None = None) -> str:
        """The box's source list: each finding and where it says so, the counted figures, the search and
        the strongest evidence against."""
        lines = [_("**Sources the rule reads** (each finding, and where the paper says it):")]
        lines += [f"- {tr(s.finding)} ({tr(s.where)}; `{s.cite}`)" for s in self.sources]
        if counted:
            counts = self.figures(counted)
            stance = {SUPPORTS: _("support"), CONTRADICTS: _("contradict")}
            lines.append("")
            lines.append(_("*Counted from them:* {counts}.").format(counts="; ".join(
                _("`{name}` = {n} (sources that {stance} `{tag}`)").format(
                    name=name, n=counts[name], stance=stance[_counted(spec)[1]], tag=_counted(spec)[0])
                for name, spec in counted.items())))
        lines.append("")
        lines.append(_("*Search:* {search}.").format(search=self.search.markdown()))
        lines.append("")
        lines.append(_("*Strongest evidence against:* {text}").format(text=tr(self.strongest_against)))
        return "\n".join(lines)


@dataclass(frozen=True)
class SourceSet:
    """A rule's example for one outcome given as sources (plus any measured figures the rule also reads):
    the rule test counts them as the check would."""

    sources: tuple[Source, ...]
    measured: Mapping[str, Any] = field(default_factory=dict)


def source_set(*sources: Source, **measured: Any) -> SourceSet:
    """An example of an outcome as a set of sources, with the measured figures the rule also reads."""
    return SourceSet(tuple(sources), dict(measured))


def _resolve_sources(cid: str, declared: dict) -> dict:
    """Check a rule's ``literature``/``counted`` declaration and turn its source-set examples into figures."""
    counted, lit = declared.get("counted") or {}, declared.get("literature")
    examples = dict(declared.get("examples") or {})
    given = {v: e for v, e in examples.items() if isinstance(e, SourceSet)}
    if not counted:
        if lit is not None or given:
            raise ValueError(f"{cid}: a rule with literature or source-set examples declares counted= (figure → tag)")
        return declared
    if lit is None:
        raise ValueError(f"{cid}: counted figures need the sources they are counted from (literature=)")
    unread = sorted(set(counted) - set(declared.get("inputs") or {}))
    if unread:
        raise ValueError(f"{cid}: counted figures {unread} are not among the rule's inputs")
    typed = sorted(v for v in examples if v not in given)
    if typed:
        raise ValueError(f"{cid}: give the examples for {typed} as claims.source_set(...): counted figures are "
                         "never typed")
    for v, s in given.items():
        clash = sorted(set(s.measured) & set(counted))
        if clash:
            raise ValueError(f"{cid}: the example for {v!r} types the counted figures {clash}")
        examples[v] = {**s.measured, **tally(s.sources, counted)}
    for name, spec in counted.items():
        _counted(spec)
    return {**declared, "examples": examples, "example_sources": given}


def _with_counts(r: "Rule", figures: Mapping[str, Any]) -> dict[str, Any]:
    """``figures`` plus the rule's counted figures, counted from its sources; a typed count raises."""
    if not r.counted:
        return dict(figures)
    typed = sorted(set(r.counted) & set(figures))
    if typed:
        raise ValueError(f"{r.claim_id}: {typed} are counted from the rule's sources (claims.Literature), not passed in")
    return {**figures, **r.literature.figures(r.counted)}


def bibliography_keys(path: Path | None = None) -> set[str]:
    """The entry keys of ``book/references.bib`` (or of ``path``)."""
    import re

    path = path or book.root() / "book" / "references.bib"
    return set(re.findall(r"^@\w+\s*\{\s*([^,\s]+)\s*,", path.read_text(encoding="utf-8"), flags=re.M))


# --- verdicts ----------------------------------------------------------------------------------------


@dataclass
class Verdict:
    """The outcome of a claim's check: the verdict its rule gave, the evidence, and the figures.

    Build one with :func:`judge` (which applies the rule), not by hand.
    """

    claim_id: str
    verdict: str
    evidence: str
    figures: dict[str, Any] = field(default_factory=dict)
    strength: str = ""
    finding: str = ""  # one or two plain sentences a reader sees without opening the protocol
    # the same three texts in every language the run writes: {"zh": {"evidence": ..., "finding": ...,
    # "strength": ...}}, written by judge() from the same figures
    texts: dict[str, dict[str, str]] = field(default_factory=dict)
    # the verdict re-decided on the rule's held-out set: {"held_out", "verdict", "figures"} (see run())
    replication: dict[str, Any] | None = None

    def msg(self, part: str) -> i18n.Msg:
        """``evidence``, ``finding`` or ``strength`` as a message in both languages (to glue it)."""
        en = getattr(self, part)
        return i18n.Msg(en, self.texts.get("zh", {}).get(part, en))

    def text(self, part: str, lang: str | None = None) -> str:
        """``evidence``, ``finding`` or ``strength`` in ``lang`` (default: the current language)."""
        lang = lang or i18n.current()
        if lang == "en":
            return getattr(self, part)
        if lang not in self.texts:
            raise i18n.MissingTranslation(f"{self.claim_id}'s verdict was written without its {lang} texts; "
                                          "run the chapter with EMBEDBOOK_LANGS=en,zh")
        return self.texts[lang][part]

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}; use one of {VERDICTS}")
        claim(self.claim_id)  # validates the id


def judge(cid: str, figures: Mapping[str, Any], evidence: Callable[[str], str], strength: str = "",
          finding: Callable[[str], str] | None = None) -> Verdict:
    """Apply claim ``cid``'s rule to ``figures`` and return the :class:`Verdict`.

    ``evidence(verdict)`` writes the evidence paragraph for the outcome the rule gave, so the prose
    follows the numbers; ``strength`` says how strong the evidence is (seeds, convergence, margin over
    a baseline); ``finding(verdict)`` writes the one or two plain sentences the box shows above its
    collapsed protocol (what was found, with the deciding figures; at most :data:`FINDING_WORDS` words).
    Raises ``LookupError`` when the claim has no rule.
    """
    r = rule_of(cid)
    if r is None:
        raise LookupError(f"claim {cid} has no declared rule: add one with claims.rule({cid!r}, ...)")
    figures = _with_counts(r, figures)
    verdict = r(figures)
    texts = {}
    for lang in dict.fromkeys(("en",) + i18n.languages()):  # English always; the others the run writes
        with i18n.language(lang):
            texts[lang] = {"evidence": str(evidence(verdict)), "strength": tr(strength),
                           "finding": str(finding(verdict)).strip() if finding is not None else ""}
        if lang != "en":
            for part, words in texts[lang].items():
                i18n.refuse_english(words, f"{cid}'s {part}")
    text = texts["en"]["finding"]
    if len(text.split()) > FINDING_WORDS:
        raise ValueError(f"{cid}'s finding has {len(text.split())} words; a box's visible finding is at most "
                         f"{FINDING_WORDS} (the evidence paragraph, collapsed, holds the rest)")
    en = texts.pop("en")
    return Verdict(cid, verdict, en["evidence"], dict(figures), en["strength"], text, texts)


def check(cid: str) -> Callable[[Callable[[Any], Verdict]], Callable[[Any], Verdict]]:
    """Register the decorated ``check_cNN(result) -> Verdict`` as the check that settles claim ``cid``.

    Every check takes one argument, the typed result of its chapter's experiment, and decides through
    :func:`judge`.
    """
    claim(cid)

    def register(fn: Callable[[Any], Verdict]) -> Callable[[Any], Verdict]:
        if cid in _CHECKS and _CHECKS[cid].__qualname__ != fn.__qualname__:
            raise ValueError(f"claim {cid} already has a check: {_CHECKS[cid].__qualname__}")
        _CHECKS[cid] = fn
        return fn

    return register


def check_of(cid: str) -> Callable[[Any], Verdict] | None:
    """Claim ``cid``'s registered check, or None if none is written yet."""
    _load(cid)
    return _CHECKS.get(cid)


def run(cid: str, result: Any, held_out: Any = None) -> Verdict:
    """Run claim ``cid``'s check on ``result`` (its chapter's measurement) and return the verdict.

    A rule that declares a ``replication`` needs ``held_out``, the same measurement on that held-out set: the
    check runs on it too, the verdict carries both, and where they disagree it is "inconclusive here"."""
    fn = check_of(cid)
    if fn is None:
        raise LookupError(f"claim {cid} has no check yet (expected in {claims_module(cid)})")
    r = rule_of(cid)
    declared = r is not None and bool(r.replication)
    if declared and held_out is None:
        raise ValueError(f"{cid}'s rule declares a held-out replication ({r.replication}); pass its measurement: "
                         f"claims.run({cid!r}, result, held_out=...)")
    if not declared and held_out is not None:
        raise ValueError(f"{cid}'s rule declares no held-out replication; declare replication= on it before "
                         "passing held_out")
    v = fn(result)
    if not isinstance(v, Verdict) or v.claim_id != cid:
        raise TypeError(f"the check for {cid} must return a Verdict for {cid}, got {v!r}")
    return replicated(v, fn(held_out), r) if declared else v


def replicated(v: Verdict, again: Verdict, r: Rule) -> Verdict:
    """``v`` with its held-out re-decision ``again``: both recorded; "inconclusive here" where they differ."""
    agree = again.verdict == v.verdict
    texts = {}
    for lang in dict.fromkeys(("en",) + tuple(v.texts)):
        with i18n.language(lang):
            said = (_("On the held-out set ({held_out}) the same rule gives the same verdict.") if agree else
                    _("On the held-out set ({held_out}) the same rule gives {again}, not {first}: the two disagree, "
                      "so nothing is decided here.")).format(
                held_out=tr(r.replication), again=verdict_word(again.verdict), first=verdict_word(v.verdict))
            short = _("On the held-out set the same rule gives {again}: the two disagree, so nothing is decided "
                      "here.").format(again=verdict_word(again.verdict))
            base = {"evidence": v.evidence, "finding": v.finding, "strength": v.strength} if lang == "en" else \
                dict(v.texts[lang])
            gap = " " if lang == "en" else ""  # Chinese sentences join without a space
            both = f"{base['finding']}{gap}{short}"
            finding = base["finding"] if agree else both if len(both.split()) <= FINDING_WORDS else str(short)
            texts[lang] = {**base, "evidence": f"{base['evidence']}{gap}{said}", "finding": finding}
    en = texts.pop("en")
    record = {"held_out": r.replication, "verdict": again.verdict, "figures": dict(again.figures)}
    return dataclasses.replace(v, verdict=v.verdict if agree else INCONCLUSIVE, evidence=en["evidence"],
                               finding=en["finding"], texts=texts, replication=record)


_STYLE = {CONFIRMED: "tip", CORRECTED: "note", REFUTED: "danger", INCONCLUSIVE: "caution", NOT_HERE: "warning",
          PENDING: "caution"}


FINDING_WORDS = 45  # the visible finding: one or two sentences

def anchor(cid: str) -> str:
    """The HTML id (and Sphinx label) of claim ``cid``'s box, for links to the box itself."""
    return f"claim-{claim(cid).id.lower()}"


def attribution(cid: str) -> str:
    """Where claim ``cid``'s words are: the article by its title in 《》, the section in 〈〉 (the Chinese
    convention for a part of a work)."""
    c = claim(cid)
    return f"{ARTICLE_NAMES[c.article]}〈{c.section}〉"


def first_sentences(text: str, n: int = 2) -> str:
    """The first ``n`` sentences of ``text`` (a stand-in finding for a check that writes none)."""
    import re

    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z(])", text.strip())
    return " ".join(parts[:n])


def _fields() -> dict[str, Any]:
    """What changed between two rule versions, in words: a ledger field → its name in the box."""
    return {"form": _("its form (a check's code became a declared rule)"), "quantity": _("the quantity"),
            "inputs": _("the figures read"), "outcomes": _("the outcomes"), "thresholds": _("the thresholds"),
            "seeds": _("the seeds"), "decide": _("the deciding code"),
            "counted": _("what is counted from the sources"), "full_size_only": _("the smoke-size agreement"),
            "replication": _("the held-out replication")}


def _version_code(entry: Mapping[str, Any]) -> str:
    thresholds = entry["declared"].get("thresholds")
    head = f"# thresholds: {thresholds}\n" if thresholds else ""
    return f"```python\n{head}{entry['decide']}\n```"


def history_markdown(r: Rule, v: Verdict) -> list[str]:
    """The rule's header and history for the box, from the rule ledger (:mod:`embedbook.book.ledger`), never
    typed: "declared before measuring" when the ledger holds one version, else "revised after measuring" with
    every earlier version, what changed, and the verdict it gives on today's figures."""
    from embedbook.book import ledger

    versions = ledger.versions(r.claim_id, _fingerprint(r))
    if len(versions) == 1:
        return [_("**Rule, declared before measuring** (the rule ledger holds this one version, of {date}).").format(
            date=versions[0]["date"]) + f"\n{r.markdown()}"]
    parts = [_("**Rule, revised after measuring.** The rule ledger holds {n} versions of this rule, the first of "
               "{first}, this one of {last}; each earlier version follows, with the verdict it gives on today's "
               "figures.").format(n=len(versions), first=versions[0]["date"], last=versions[-1]["date"])
             + f"\n\n{r.markdown()}"]
    if versions[-1].get("why"):
        parts.append(_("*Why it last changed:* {why}.").format(why=tr(versions[-1]["why"]).rstrip("。.")))
    for i, (old, new) in enumerate(zip(versions, versions[1:]), start=1):
        replayed = ledger.replay(old, v.figures, {name: globals()[name] for name in ledger.SYMBOLS})
        today = (_("on today's figures it gives **{verdict}**.").format(verdict=verdict_word(replayed))
                 if replayed is not None else
                 _("it cannot be replayed on today's figures (it decided inside its check, on figures no record "
                   "keeps).") if old["era"] == "check" else
                 _("it cannot be replayed on today's figures (it reads figures today's check does not measure)."))
        first = (_(" When first measured it gave **{verdict}**.").format(verdict=verdict_word(old["first_verdict"]))
                 if old.get("first_verdict") else "")
        names = _fields()
        changed = ", ".join(str(names[k]) if k in names else f"`{k}`" for k in ledger.changes(old, new))
        when = (_("{date}, commit `{commit}`").format(date=old["date"], commit=old["commit"][:7]) if old["commit"]
                else old["date"])  # an entry added by `tools/ledger.py add` has its commit after the next rebuild
        why = (" " + _("*Why:* {why}.").format(why=tr(new["why"]).rstrip("。."))
               if new.get("why") and new is not versions[-1] else "")  # the last change's why is said above
        parts.append(_("*Version {i}* ({when}): {today}{first} Changed next: {changed}.").format(
            i=i, when=when, today=today, first=first, changed=changed) + why
            + "\n\n" + _version_code(old))
    return parts


def protocol_markdown(v: Verdict, lang: str | None = None) -> str:
    """How verdict ``v`` was decided, for the box's collapsed part: the claim as the register reads it,
    the rule (declared before measuring, or revised after, with what it was), the evidence, its strength
    and, for a literature rule, its sources; in ``lang`` (default: the current language)."""
    lang = lang or i18n.current()
    c = claim(v.claim_id)
    r = _RULES.get(v.claim_id)
    with i18n.language(lang):
        parts = [_("**The claim as the register reads it.** {text}").format(text=tr(c.paraphrase))]
        if r is not None:
            parts += history_markdown(r, v)
        basis = _(" *Basis:* {words}.").format(words=basis_words(r.basis)) if r is not None else ""
        parts.append(_("**Evidence.**") + f"{basis} {v.text('evidence')}")
        if v.replication:
            figures = ", ".join(f"`{k}` = {_fmt(x)}" for k, x in v.replication["figures"].items()
                                if r is None or k in r.inputs)
            parts.append(_("**Held-out replication** ({held_out}): the rule gives **{verdict}** on {figures}.").format(
                held_out=tr(v.replication["held_out"]), verdict=verdict_word(v.replication["verdict"]), figures=figures))
        if v.strength:
            parts.append(_("**Strength of the evidence.** {text}").format(text=v.text("strength")))
        if r is not None and r.literature is not None:
            parts.append(r.literature.markdown(r.counted))
        return "\n\n".join(parts)


def verdict_markdown(v: Verdict, lang: str | None = None) -> str:
    """A MyST admonition a reader can pass at a glance: the verdict and the claim as its title, the
    article's words (Chinese; in the English edition the English below), the article named by title, the
    finding; then the protocol (:func:`protocol_markdown`) collapsed in a "How this was decided" dropdown.
    Both editions' boxes carry the class ``verdict-<outcome>`` (the drift test compares them)."""
    lang = lang or i18n.current()
    c = claim(v.claim_id)
    r = _RULES.get(v.claim_id)
    with i18n.language(lang):
        finding = v.text("finding") or first_sentences(v.text("evidence"))
        if r is not None:  # what kind of evidence decided stays visible: a constructed "confirmed" is weaker
            finding += " " + _("*Evidence: {words}.*").format(words=basis_words(r.basis))
        title = f"{verdict_name(v.verdict)} · {c.id} · {tr(c.paraphrase)}"
        english = f">\n> *{c.english}*\n" if lang == "en" else ""
        body = (f"> {c.quote}\n{english}>\n> — {attribution(c.id)}\n\n"
                f"{finding}\n\n"
                f"`````{{dropdown}} {_('How this was decided')}\n:class-container: claim-protocol\n\n"
                f"{protocol_markdown(v)}\n`````")
    kind = "verdict-" + v.verdict.replace(" ", "-")
    return (f"``````{{admonition}} {title}\n:class: {_STYLE[v.verdict]} claim-box {kind}\n:name: {anchor(c.id)}\n\n"
            f"{body}\n``````\n")


def show(v: Verdict, smoke: bool = False) -> None:
    """A chapter's claim box: display it (once per language the run writes), glue ``<id>_verdict`` and
    each figure as ``<id>_<name>``, and record the verdict for the verdicts chapter (``smoke`` marks a
    smoke-size run)."""
    with i18n.language("zh"):
        zh = str(verdict_name(v.verdict)) if "zh" in i18n.languages() else v.verdict
    book.glue(f"{v.claim_id}_verdict", i18n.Msg(v.verdict, zh))
    for name, value in v.figures.items():
        book.glue(f"{v.claim_id}_{name}", value)
    record_verdict(v, smoke=smoke)
    i18n.publish({lang: ({"text/markdown": verdict_markdown(v, lang), "text/plain": v.verdict}, {})
                  for lang in i18n.languages()})


def verdict_store(smoke: bool) -> Path | None:
    """Where chapters record their claims' verdicts: ``$EMBEDBOOK_VERDICTS/<size>`` if set, else
    ``_build/verdicts/<size>`` in the book (``size`` is ``smoke`` or ``full``); None outside a checkout
    (a chapter opened on its own, e.g. on Colab, records nothing)."""
    size = "smoke" if smoke else "full"
    env = os.environ.get("EMBEDBOOK_VERDICTS")
    if env:
        return Path(env) / size
    try:
        return book.root() / "_build" / "verdicts" / size
    except FileNotFoundError:
        return None


def _plain(value: Any) -> Any:
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


def _fingerprint(rule: Rule | None) -> str | None:
    import inspect

    from embedbook.book import ledger

    return ledger.current(rule.claim_id, inspect.getsourcefile(rule.decide))["fingerprint"] if rule else None


def record_verdict(v: Verdict, smoke: bool) -> Path | None:
    """Write verdict ``v`` to the verdict store, atomically (two executions may write at once)."""
    store = verdict_store(smoke)
    if store is None:
        return None
    c = claim(v.claim_id)
    rule = rule_of(v.claim_id)
    record = {
        "claim": v.claim_id,
        "verdict": v.verdict,
        "evidence": v.evidence,
        "strength": v.strength,
        "finding": v.finding or first_sentences(v.evidence),
        "texts": v.texts,  # the same evidence, finding and strength in the other languages
        "figures": {k: _plain(x) for k, x in v.figures.items()},
        "replication": ({**v.replication, "figures": {k: _plain(x) for k, x in v.replication["figures"].items()}}
                        if v.replication else None),
        "chapter": c.chapter,
        "size": "smoke" if smoke else "full",
        "basis": rule.basis if rule else None,
        "fingerprint": _fingerprint(rule),  # the rule ledger's name for the rule that decided
        "chapter_sha256": book.chapter_digest(c.chapter),
        "sources": [{"cite": s.cite, "finding": s.finding, "where": s.where}
                    for s in (rule.literature.sources if rule and rule.literature else ())],
    }
    store.mkdir(parents=True, exist_ok=True)
    path = store / f"{v.claim_id}.json"
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, path)
    return path


def _follows_from_figures(cid: str, record: Mapping[str, Any]) -> bool:
    rule = rule_of(cid)
    if rule is None:
        return False
    try:
        verdict = rule(record["figures"])
        again = record.get("replication")
        if rule.replication:  # a verdict the held-out set does not repeat is "inconclusive here"
            if not again:
                return False
            verdict = verdict if rule(again["figures"]) == verdict else INCONCLUSIVE
        return verdict == record["verdict"]
    except (KeyError, ValueError, TypeError):  # figures the current rule no longer reads
        return False


def chapter_records(chapter: str, smoke: bool) -> dict[str, dict]:
    """The recorded verdicts of one chapter's claims at this size, by claim id (what its lesson's table of the
    articles' claims shows). Raises ``RuntimeError`` naming a claim whose record is missing or stale, as
    :func:`recorded_verdicts` does for the whole register."""
    store = verdict_store(smoke)
    wanted = [cid for cid, c in CLAIMS.items() if c.chapter == chapter]
    records = {}
    for cid in wanted:
        path = store / f"{cid}.json" if store is not None else None
        if path is None:
            raise RuntimeError(f"the table of claim {cid} reads the verdict its audit page recorded, and outside a "
                               "clone of the book nothing is recorded: read the published audit page, or run the "
                               f"chapter's audit notebook ({chapter[:2]}_audit) first in the same folder")
        if not path.exists():
            raise RuntimeError(f"claim {cid} has no recorded verdict in {store}: execute chapter {chapter}'s audit "
                               f"page first (`make book` does; `make page {chapter[:2]}` for one chapter)")
        records[cid] = json.loads(path.read_text(encoding="utf-8"))
    digest = book.chapter_digest(chapter) if records else ""
    stale = [cid for cid, r in records.items() if r["chapter_sha256"] != digest or not _follows_from_figures(cid, r)]
    if stale:
        raise RuntimeError(f"the recorded verdicts of {', '.join(stale)} are stale: chapter {chapter} or the code it "
                           "imports changed since its audit page ran. Execute it again (`make book` does).")
    return records


def record_text(record: Mapping[str, Any], part: str, lang: str | None = None) -> str:
    """A record's ``part`` ("finding", "evidence", "strength") in ``lang`` (default: the current language)."""
    lang = lang or i18n.current()
    if lang == "en":
        return record[part]
    text = record.get("texts", {}).get(lang, {}).get(part)
    if not text:
        raise i18n.MissingTranslation(f"the record of {record['claim']} has no {part} in {lang}: execute its chapter "
                                      "with EMBEDBOOK_LANGS=en,zh (make book does)")
    return text


def articles_said_markdown(chapter: str, records: Mapping[str, Mapping[str, Any]], lang: str | None = None) -> str:
    """A lesson's closing table, "What the articles said": for each claim the chapter settles, the claim in
    short (its paraphrase), its verdict linked to its box on the chapter's audit page, and the finding: the
    sentence or two that carry the correction or the reason (no protocol, no figures table)."""
    lang = lang or i18n.current()
    with i18n.language(lang):
        rows = [f"| {_('The article says')} | {_('Verdict')} | {_('What the evidence shows')} |", "|:--|:--|:--|"]
        for cid, c in CLAIMS.items():
            if c.chapter != chapter:
                continue
            r = records[cid]
            verdict = f"{{ref}}`{verdict_name(r['verdict'])} · {cid} <{anchor(cid)}>`"
            finding = " ".join(record_text(r, "finding", lang).split()).replace("|", "\\|")
            rows.append(f"| {tr(c.paraphrase)} | {verdict} | {finding} |")
    return "\n".join(rows) + "\n"


def recorded_verdicts(smoke: bool) -> dict[str, dict]:
    """Every verdict the chapters recorded at this size, by claim id.

    Raises ``RuntimeError`` naming the claims whose verdict is missing, and those whose record is
    stale (the chapter changed since it ran): the verdicts chapter must show this build's verdicts.
    """
    store = verdict_store(smoke)
    if store is None:
        raise RuntimeError("this page reads the verdicts the book's build recorded, and outside a clone of the book "
                           "nothing is recorded: read the published verdicts page, or clone the book and run "
                           "`make book` (or set EMBEDBOOK_VERDICTS to a folder of recorded verdicts)")
    records = {}
    if store.exists():
        for path in sorted(store.glob("C*.json")):
            record = json.loads(path.read_text(encoding="utf-8"))
            records[record["claim"]] = record
    missing = [cid for cid in CLAIMS if cid not in records]
    if missing:
        where = ", ".join(sorted({claim(c).chapter for c in missing}))
        raise RuntimeError(
            f"{len(missing)} claims have no recorded verdict in {store}: {', '.join(missing)}. "
            f"Execute their chapters first ({where}); `make book` executes every chapter before this one."
        )
    digests = {chapter: book.chapter_digest(chapter) for chapter in {r["chapter"] for r in records.values()}}
    stale = [cid for cid, r in records.items() if r["chapter_sha256"] != digests[r["chapter"]]]
    if stale:
        raise RuntimeError(
            f"the recorded verdicts of {', '.join(stale)} are stale: their chapters or the code they import "
            "changed since they ran. Execute those chapters again (`make book` does)."
        )
    # A record must still follow from its figures under the rule as declared now (a rule edited in
    # claims.py after the run would otherwise leave an old verdict looking current).
    drifted = [cid for cid, r in records.items() if not _follows_from_figures(cid, r)]
    if drifted:
        raise RuntimeError(
            f"the recorded verdicts of {', '.join(drifted)} no longer follow from their figures under the "
            "current rules. Execute their chapters again."
        )
    return records
