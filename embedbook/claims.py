"""The register of the two source articles' claims (C01–C49) and their verdicts.

Each claim carries the article's own words (a verbatim Chinese quote), an English paraphrase,
the chapter that settles it and the package module whose check settles it. A check is a
function registered with :func:`check`; it measures (or is handed the chapter's measurements)
and returns a :class:`Verdict`. A claim without a check is reported as ``pending`` — never as
confirmed.

Used by every chapter (claim boxes) and by the closing verdicts chapter.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

CONFIRMED = "confirmed"
CORRECTED = "confirmed with a correction"
REFUTED = "refuted"
NOT_HERE = "cannot be reproduced here"
PENDING = "pending"
VERDICTS = (CONFIRMED, CORRECTED, REFUTED, NOT_HERE, PENDING)

LONG = "000"  # seeds/000_a20c4a869fa23ada.txt, 《Embedding层：从离散符号到语义空间的第一步》
SHORT = "004"  # seeds/004_c963df5ff42eda00.txt, 《什么是嵌入层？文字是怎么变成向量的》


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a source article."""

    id: str
    article: str
    section: str
    quote: str
    paraphrase: str
    chapter: str
    module: str


@dataclass
class Verdict:
    """The outcome of a claim's check: a verdict, a one-paragraph evidence text and its figures."""

    claim_id: str
    verdict: str
    evidence: str
    figures: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}; use one of {VERDICTS}")
        claim(self.claim_id)  # validates the id


def _c(id, article, section, quote, paraphrase, chapter, module) -> Claim:
    return Claim(id, article, section, quote, paraphrase, chapter, module)


# fmt: off
CLAIMS: dict[str, Claim] = {c.id: c for c in [
    _c("C01", LONG, "从整数索引到稠密向量", "其时间复杂度是 $O(1)$——无论词表多大，取出某一行的代价都是常数级",
       "Looking up row i costs O(1), whatever the vocabulary size V.", "02_lookup", "lookup"),
    _c("C02", LONG, "从整数索引到稠密向量", "将Token ID表示为One-Hot向量（仅在第 $i$ 个位置为1，其余为0），然后与Embedding矩阵相乘",
       "Lookup equals one_hot(i) @ E (the article writes E^T · one_hot(i)).", "02_lookup", "lookup"),
    _c("C03", LONG, "从整数索引到稠密向量", "Embedding层在数学上等同于一个没有偏置项的线性层，输入是One-Hot向量",
       "An embedding layer is a bias-free linear layer applied to a one-hot input.", "02_lookup", "lookup"),
    _c("C04", LONG, "从整数索引到稠密向量", "直接存储One-Hot向量极其浪费内存（$V$ 维向量只有1个非零元素），因此所有框架都采用查找表实现",
       "Materialising one-hot vectors wastes memory, so every framework uses a lookup table.", "02_lookup", "lookup"),
    _c("C05", LONG, "参数量与内存占用", "以FP32存储，每个参数占4字节，单个Embedding矩阵就需要约524MB显存。如果采用FP16或BF16，则减半至262MB",
       "V=32,000, d=4,096 gives 131,072,000 parameters: about 524 MB in FP32 and 262 MB in FP16/BF16.", "03_sizing", "sizing"),
    _c("C06", LONG, "参数量与内存占用", "GPT-3 175B\t50,257\t12,288\t617.5M",
       "The article's table: BERT-base 23.4M, GPT-2 (d=1,600) 80.4M, GPT-3 617.5M, LLaMA-65B 262.1M embedding parameters.",
       "03_sizing", "sizing"),
    _c("C07", LONG, "权重共享：数学上的对称性", "不共享权重时，Embedding相关的参数量为 $2 \\times V \\times d$；共享后减半为 $V \\times d$。对于GPT-3规模的模型，这能节省约6亿参数",
       "Tying cuts embedding parameters from 2Vd to Vd; about 600M saved at GPT-3 scale.", "03_sizing", "sizing"),
    _c("C08", LONG, "权重共享：数学上的对称性", "经验研究表明，这能改善模型的泛化能力，特别是在低资源场景下",
       "Tying acts as a regulariser and improves generalisation, especially with little data.", "04_tying", "tying"),
    _c("C09", LONG, "权重共享：数学上的对称性", "2024年发表在ICML的研究表明，对于超大词表（如256K以上），Weight Tying可能引入性能损失",
       "An 'ICML 2024' study found tying can hurt for vocabularies of 256K and more.", "04_tying", "tying"),
    _c("C10", LONG, "静态表示与上下文的第一次交汇", "同一个Token无论出现在什么语境中，其初始表示完全相同",
       "The embedding output is static: the same token gets the same vector in every context.", "11_contextual", "contextual"),
    _c("C11", LONG, "静态表示与上下文的第一次交汇", "BERT论文中的一个经典实验量化了这种差异",
       "'The BERT paper' found that less than 5% of the variance of contextual representations is explained by static vectors.",
       "11_contextual", "contextual"),
    _c("C12", LONG, "Embedding是如何被学习的", "只有输入序列中实际出现的Token对应的Embedding行会收到梯度更新",
       "Only the rows of tokens present in a batch receive gradient ('sparse gradients').", "05_learning", "dynamics"),
    _c("C13", LONG, "Embedding是如何被学习的", "标准Adam优化器不支持稀疏梯度，需要使用SparseAdam或SGD",
       "Standard Adam does not support sparse gradients; SparseAdam or SGD is needed.", "05_learning", "dynamics"),
    _c("C14", LONG, "Embedding是如何被学习的", "这解释了为什么一些大模型训练使用SGD而非Adam",
       "That is why some large models are trained with SGD rather than Adam.", "05_learning", "dynamics"),
    _c("C15", LONG, "Embedding是如何被学习的", "低频Token可能在整个训练过程中只出现几次，其Embedding几乎保持随机初始化状态",
       "Frequent tokens are updated constantly; rare tokens stay close to their random initialisation.", "05_learning", "dynamics"),
    _c("C16", LONG, "Embedding是如何被学习的", "2018年的一项研究发现，将Embedding学习率设置为其他层的10倍",
       "A '2018 study': a 10x learning rate for the embedding layer improves rare-token representations.", "05_learning", "dynamics"),
    _c("C17", LONG, "嵌入维度：权衡的艺术", "维度过低会限制表示能力",
       "Too small a d limits capacity and crowds meanings; too large costs memory and compute and overfits small data.",
       "07_dimension", "dimension"),
    _c("C18", LONG, "嵌入维度：权衡的艺术", "Self-Attention的计算复杂度是 $O(n^2 \\cdot d)$",
       "Self-attention costs O(n^2 d).", "07_dimension", "dimension"),
    _c("C19", LONG, "嵌入维度：权衡的艺术", "$$N \\approx 12 \\times L \\times d^2$$",
       "N ≈ 12·L·d², hence d ≈ sqrt(N/(12L)), with the article's table of model sizes, layers and widths.", "03_sizing", "sizing"),
    _c("C20", LONG, "嵌入维度：权衡的艺术", "嵌入维度必须能被注意力头数整除",
       "d must be divisible by the number of attention heads (4096/32 = 128).", "03_sizing", "sizing"),
    _c("C21", LONG, "初始化策略", "这是Xavier初始化的变体，确保前向传播时激活值的方差保持在合理范围",
       "E_ij ~ N(0, 1/√d), 'a variant of Xavier', keeps forward activations in a sane range.", "06_init", "init"),
    _c("C22", LONG, "初始化策略", "一些工作建议使用预训练的静态词向量（如Word2Vec或GloVe）初始化Embedding层，这能加速收敛，特别是在小数据场景",
       "Initialising from pretrained Word2Vec/GloVe speeds up convergence, especially on small data.", "06_init", "init"),
    _c("C23", LONG, "初始化策略", "PyTorch的nn.Embedding默认使用标准正态分布 $\\mathcal{N}(0, 1)$ 初始化，而非Xavier初始化",
       "PyTorch's nn.Embedding initialises with N(0, 1), not Xavier, so warm-up matters.", "06_init", "init"),
    _c("C24", LONG, "从Embedding到注意力：Q、K、V的来源", "$$\\mathbf{Q} = \\mathbf{X}\\mathbf{W}_Q, \\quad \\mathbf{K} = \\mathbf{X}\\mathbf{W}_K, \\quad \\mathbf{V} = \\mathbf{X}\\mathbf{W}_V$$",
       "Q = XW_Q, K = XW_K, V = XW_V with d×d projections of the (position-added) embeddings.", "12_qkv", "contextual"),
    _c("C25", LONG, "最新研究：扩展Embedding的边界", "实验显示，在相同计算预算下，SCONE能将困惑度降低3-5%",
       "SCONE keeps n-gram embeddings in CPU memory, loads them on demand, keeps accelerator memory fixed, and lowers perplexity by 3–5%.",
       "14_scaling", "ngram"),
    _c("C26", LONG, "最新研究：扩展Embedding的边界", "自适应Embedding根据Token频率动态分配维度，在不损失表示能力的前提下节省内存",
       "Adaptive embeddings give tokens different dimensions by frequency and save memory without losing quality.", "14_scaling", "ngram"),
    _c("C27", LONG, "实践中的考量", "当前主流大模型的词表在30K-100K之间",
       "Mainstream LLM vocabularies are 30K–100K.", "03_sizing", "sizing"),
    _c("C28", LONG, "实践中的考量", "将FP32 Embedding量化为INT8或INT4，能将内存占用减少4-8倍",
       "INT8 / INT4 quantisation cuts embedding memory 4x / 8x.", "13_quantize", "quantize"),
    _c("C29", LONG, "实践中的考量", "研究表明，Embedding层对量化相对鲁棒——相比于Attention层，量化的精度损失更小",
       "Embedding layers are more robust to quantisation than attention layers.", "13_quantize", "quantize"),
    _c("C30", LONG, "实践中的考量", "一些实践建议对Embedding层使用较小的学习率，或完全冻结Embedding层只微调上层",
       "When fine-tuning on shifted data, a smaller embedding learning rate or a frozen embedding helps.", "15_practice", "practice"),
    _c("C31", LONG, "实践中的考量", "更好的做法是使用子词分词（如BPE），将未登录词拆分为已知子词的组合，保证每个Token都有有意义的Embedding",
       "Subword tokenisation (BPE) splits unseen words into known pieces so every token has a meaningful embedding.",
       "01_tokens", "tokenize"),
    _c("C32", LONG, "实践中的考量", "更大的词表意味着更少的Token数量（每个Token承载更多信息），但Embedding层参数量线性增长",
       "A larger vocabulary means fewer tokens per text but linearly more embedding parameters.", "01_tokens", "tokenize"),
    _c("C33", SHORT, "进来的是编号，不是词", "一个汉字可能是一个 token，也可能和相邻的字合成一个；英文词也可能被拆成两三个片段",
       "A Chinese character may be one token or merge with neighbours; an English word may split into 2–3 pieces; "
       "'32K context' counts tokens, not characters.", "01_tokens", "tokenize"),
    _c("C34", SHORT, "进来的是编号，不是词", "编号本身没有大小含义",
       "Token ids carry no magnitude meaning: nearby ids are not nearby meanings.", "01_tokens", "tokenize"),
    _c("C35", SHORT, "发生的是查表，等价于一次矩阵乘法", "词表十万、维度一千，这张矩阵就有一亿个参数，在模型总参数里往往占不小的一块",
       "Vocabulary 100K × dimension 1,000 = 100M parameters, often a sizeable share of the model.", "03_sizing", "sizing"),
    _c("C36", SHORT, "发生的是查表，等价于一次矩阵乘法", "所以多语言模型的嵌入层通常比单语模型厚",
       "Multilingual models have thicker embedding layers than monolingual ones.", "03_sizing", "sizing"),
    _c("C37", SHORT, "发生的是查表，等价于一次矩阵乘法", "位置编码不在嵌入矩阵里，是另一套加进去的量",
       "Position information is added separately, not stored in the embedding matrix; later layers keep the dimension "
       "and change the values.", "02_lookup", "lookup"),
    _c("C38", SHORT, "那些数字是训练出来的", "为了让这两类上下文都预测得准，它们的向量会被拉到相近区域",
       "Words that share contexts (苹果/香蕉 with 很甜, 多少钱一斤) are pulled together; similarity is a by-product "
       "of next-token prediction.", "05_learning", "dynamics"),
    _c("C39", SHORT, "那些数字是训练出来的", "所以向量反映的是语料里的用法，不是词典定义",
       "Vectors reflect usage in the corpus, not dictionary meaning: 苹果 sits near 手机/发布会 or 水果/产地 depending on the corpus.",
       "10_word2vec", "word2vec"),
    _c("C40", SHORT, "距离怎么算，维度怎么选", "常用余弦相似度，看夹角不看长度。向量长度常被用来承载词频这类信息",
       "Cosine similarity ignores length; vector length often carries frequency information.", "08_similarity", "similarity"),
    _c("C41", SHORT, "距离怎么算，维度怎么选", "做检索前一般先归一化再算内积，结果等价，速度更快",
       "Normalising first and then taking inner products gives the same result as cosine, and is faster for retrieval.",
       "08_similarity", "similarity"),
    _c("C42", SHORT, "距离怎么算，维度怎么选", "常见取值在几百到几千之间",
       "Common dimensions range from hundreds to thousands.", "07_dimension", "dimension"),
    _c("C43", SHORT, "国王减男人加女人，边界在哪", "king 减 man 加 woman，最近邻是 queen。它在早期词向量上确实能复现",
       "king − man + woman has queen as nearest neighbour on early word vectors.", "09_analogies", "similarity"),
    _c("C44", SHORT, "国王减男人加女人，边界在哪", "它证明的是分布规律可被线性近似，不证明模型会做逻辑推理",
       "It works because of shared co-occurrence statistics (linear offsets), not reasoning.", "09_analogies", "similarity"),
    _c("C45", SHORT, "国王减男人加女人，边界在哪", "这类类比在低频词、专有名词、多义词上经常失效",
       "Analogies often fail on rare words, proper nouns and polysemous words.", "09_analogies", "similarity"),
    _c("C46", SHORT, "一张矩阵解决不了的事", "后来的上下文相关表示让同一个词在不同句子里得到不同向量，代价是每个 token 都要过一遍网络",
       "Polysemy ('apple' fruit vs company) is resolved only by contextual representations, at the cost of running "
       "the network per token.", "11_contextual", "contextual"),
    _c("C47", SHORT, "一张矩阵解决不了的事", "没见过的词，分词器拆成子词片段，向量由片段组合而来，能用但不精确",
       "Unseen words are assembled from subword pieces: usable but imprecise; rare words are poorly placed.",
       "01_tokens", "tokenize"),
    _c("C48", SHORT, "一张矩阵解决不了的事", "向量空间是否对齐，取决于训练语料里有没有平行数据",
       "Cross-lingual alignment depends on parallel data; unaligned spaces put translations far apart.", "15_practice", "practice"),
    _c("C49", SHORT, "一张矩阵解决不了的事", "显存省了，向量的细微差别也被抹平，近邻排序可能变化",
       "Quantising the embedding matrix blurs fine differences and can reorder nearest neighbours.", "13_quantize", "quantize"),
]}
# fmt: on

_CHECKS: dict[str, Callable[..., Verdict]] = {}
_FULL_SIZE_ONLY: set[str] = set()  # checks whose smoke-size measurement is too small to decide


def claim(cid: str) -> Claim:
    """Return the claim with id ``cid`` (``"C01"`` … ``"C49"``)."""
    try:
        return CLAIMS[cid]
    except KeyError:
        raise KeyError(f"unknown claim id {cid!r}: ids run from C01 to C{len(CLAIMS):02d}") from None


def check(cid: str, smoke_suffices: bool = True) -> Callable[[Callable[..., Verdict]], Callable[..., Verdict]]:
    """Register the decorated function as the check that settles claim ``cid``.

    The function takes ``smoke: bool`` plus optional keyword arguments holding measurements a
    chapter already made, and returns a :class:`Verdict`. ``smoke_suffices=False`` marks a check
    whose smoke-size run is too small to reach the full-size verdict; the verdicts chapter then runs
    it at full size.
    """
    claim(cid)
    if not smoke_suffices:
        _FULL_SIZE_ONLY.add(cid)

    def register(fn: Callable[..., Verdict]) -> Callable[..., Verdict]:
        if cid in _CHECKS and _CHECKS[cid].__qualname__ != fn.__qualname__:
            raise ValueError(f"claim {cid} already has a check: {_CHECKS[cid].__qualname__}")
        _CHECKS[cid] = fn
        return fn

    return register


def _load_check(cid: str) -> Callable[..., Verdict] | None:
    if cid not in _CHECKS:
        try:
            importlib.import_module(f"embedbook.{claim(cid).module}")
        except ModuleNotFoundError as err:
            if err.name != f"embedbook.{claim(cid).module}":
                raise
    return _CHECKS.get(cid)


def smoke_suffices(cid: str) -> bool:
    """Whether claim ``cid``'s check reaches its verdict at smoke size (see :func:`check`)."""
    _load_check(cid)
    return cid not in _FULL_SIZE_ONLY


def has_check(cid: str) -> bool:
    """Whether claim ``cid`` has a registered check (its module is imported if needed)."""
    return _load_check(cid) is not None


def run(cid: str, smoke: bool = False, **measured: Any) -> Verdict:
    """Run claim ``cid``'s check (or hand it the chapter's ``measured`` values); ``pending`` if none."""
    fn = _load_check(cid)
    if fn is None:
        return Verdict(cid, PENDING, "No check has been written for this claim yet.")
    v = fn(smoke=smoke, **measured)
    if not isinstance(v, Verdict) or v.claim_id != cid:
        raise TypeError(f"the check for {cid} must return a Verdict for {cid}, got {v!r}")
    return v


def verdict_markdown(v: Verdict) -> str:
    """A MyST admonition box: quote, paraphrase, verdict and evidence."""
    c = claim(v.claim_id)
    style = {CONFIRMED: "tip", CORRECTED: "note", REFUTED: "danger", NOT_HERE: "warning", PENDING: "caution"}
    return (
        f"```{{admonition}} {c.id} · {v.verdict}\n:class: {style[v.verdict]}\n\n"
        f"> {c.quote}\n>\n> — article {c.article}, 《{c.section}》\n\n"
        f"**Claim.** {c.paraphrase}\n\n**Verdict: {v.verdict}.** {v.evidence}\n```\n"
    )


def show(v: Verdict) -> None:
    """Display the claim box and glue ``<id>_verdict`` plus each figure as ``<id>_<name>``."""
    from IPython.display import Markdown, display

    from embedbook.book import glue

    glue(f"{v.claim_id}_verdict", v.verdict)
    for name, value in v.figures.items():
        glue(f"{v.claim_id}_{name}", value)
    display(Markdown(verdict_markdown(v)))


def table(smoke: bool = True, ids: list[str] | None = None) -> list[Verdict]:
    """Run the checks of ``ids`` (default: all claims) and return their verdicts in id order.

    With ``smoke=True`` a check runs at smoke size unless it is marked as needing full size.
    """
    return [run(cid, smoke=smoke and smoke_suffices(cid)) for cid in (ids or list(CLAIMS))]
