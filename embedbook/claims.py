"""The register of the two source articles' claims (C01–C49), their declared rules and their verdicts.

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

Each chapter's experiments and checks live in :mod:`embedbook.experiments` (``check_cNN(result)``).
"""

from __future__ import annotations

import importlib
import json
import math
import os
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from embedbook import book, i18n
from embedbook.i18n import _, tr

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
    """One checkable statement of a source article."""

    id: str
    article: str
    section: str
    quote: str
    english: str
    paraphrase: str
    chapter: str
    module: str  # the library module the claim is about


def _c(id, article, section, quote, english, paraphrase, chapter, module) -> Claim:
    return Claim(id, article, section, quote, english, paraphrase, chapter, module)


# fmt: off
CLAIMS: dict[str, Claim] = {c.id: c for c in [
    _c("C01", LONG, "从整数索引到稠密向量", "其时间复杂度是 $O(1)$——无论词表多大，取出某一行的代价都是常数级",
       "its time complexity is $O(1)$: however large the vocabulary, taking out one row costs a constant amount",
       "Looking up row $i$ costs $O(1)$, whatever the vocabulary size $V$.", "02_lookup", "lookup"),
    _c("C02", LONG, "从整数索引到稠密向量", "将Token ID表示为One-Hot向量（仅在第 $i$ 个位置为1，其余为0），然后与Embedding矩阵相乘",
       "represent the token ID as a one-hot vector (1 only at position i, 0 everywhere else), then multiply it by the embedding matrix",
       "Lookup equals $\\mathrm{onehot}(i)\\,E$ (the article writes $E^\\top \\cdot \\mathrm{onehot}(i)$).", "02_lookup", "lookup"),
    _c("C03", LONG, "从整数索引到稠密向量", "Embedding层在数学上等同于一个没有偏置项的线性层，输入是One-Hot向量",
       "mathematically, an embedding layer is equivalent to a linear layer without a bias term, whose input is a one-hot vector",
       "An embedding layer is a bias-free linear layer applied to a one-hot input.", "02_lookup", "lookup"),
    _c("C04", LONG, "从整数索引到稠密向量", "直接存储One-Hot向量极其浪费内存（$V$ 维向量只有1个非零元素），因此所有框架都采用查找表实现",
       "storing one-hot vectors directly wastes a great deal of memory (a $V$-dimensional vector has a single non-zero element), so every framework implements it as a lookup table",
       "Materialising one-hot vectors wastes memory, so every framework uses a lookup table.", "02_lookup", "lookup"),
    _c("C05", LONG, "参数量与内存占用", "以FP32存储，每个参数占4字节，单个Embedding矩阵就需要约524MB显存。如果采用FP16或BF16，则减半至262MB",
       "stored in FP32 at 4 bytes per parameter, a single embedding matrix needs about 524 MB of GPU memory; in FP16 or BF16 that halves to 262 MB",
       "$V = 32{,}000$, $d = 4{,}096$ gives 131,072,000 parameters: about 524 MB in FP32 and 262 MB in FP16/BF16.", "03_sizing", "sizing"),
    _c("C06", LONG, "参数量与内存占用", "GPT-3 175B\t50,257\t12,288\t617.5M",
       "GPT-3 175B · vocabulary 50,257 · dimension 12,288 · 617.5M parameters (a row of the article's table)",
       "The article's table: BERT-base 23.4M, GPT-2 ($d = 1{,}600$) 80.4M, GPT-3 617.5M, LLaMA-65B 262.1M embedding parameters.",
       "03_sizing", "sizing"),
    _c("C07", LONG, "权重共享：数学上的对称性", "不共享权重时，Embedding相关的参数量为 $2 \\times V \\times d$；共享后减半为 $V \\times d$。对于GPT-3规模的模型，这能节省约6亿参数",
       "without sharing, the embedding-related parameters number $2 \\times V \\times d$; with sharing they halve to $V \\times d$. For a GPT-3-scale model this saves about 600 million parameters",
       "Tying cuts embedding parameters from $2Vd$ to $Vd$; about 600M saved at GPT-3 scale.", "03_sizing", "sizing"),
    _c("C08", LONG, "权重共享：数学上的对称性", "经验研究表明，这能改善模型的泛化能力，特别是在低资源场景下",
       "empirical studies show that this improves the model's generalisation, especially in low-resource settings",
       "Tying acts as a regulariser and improves generalisation, especially with little data.", "04_tying", "lm"),
    _c("C09", LONG, "权重共享：数学上的对称性", "2024年发表在ICML的研究表明，对于超大词表（如256K以上），Weight Tying可能引入性能损失",
       "a study published at ICML in 2024 shows that for very large vocabularies (256K and above), weight tying may cost performance",
       "An 'ICML 2024' study found tying can hurt for vocabularies of 256K and more.", "04_tying", "lm"),
    _c("C10", LONG, "静态表示与上下文的第一次交汇", "同一个Token无论出现在什么语境中，其初始表示完全相同",
       "the same token has exactly the same initial representation whatever context it appears in",
       "The embedding output is static: the same token gets the same vector in every context.", "11_contextual", "contextual"),
    _c("C11", LONG, "静态表示与上下文的第一次交汇", "BERT论文中的一个经典实验量化了这种差异：研究者将BERT的上下文相关表示与静态Word2Vec向量进行对比，发现平均只有不到5%的方差可以被静态向量解释",
       "a classic experiment in the BERT paper quantified this difference: the researchers compared BERT's context-dependent representations with static Word2Vec vectors and found that on average less than 5% of the variance can be explained by the static vectors",
       "'The BERT paper' found that less than 5% of the variance of contextual representations is explained by static vectors.",
       "11_contextual", "contextual"),
    _c("C12", LONG, "Embedding是如何被学习的", "只有输入序列中实际出现的Token对应的Embedding行会收到梯度更新",
       "only the embedding rows of the tokens that actually occur in the input sequence receive gradient updates",
       "Only the rows of tokens present in a batch receive gradient updates ('sparse gradients').", "05_learning", "dynamics"),
    _c("C13", LONG, "Embedding是如何被学习的", "标准Adam优化器不支持稀疏梯度，需要使用SparseAdam或SGD",
       "the standard Adam optimiser does not support sparse gradients; SparseAdam or SGD is needed",
       "Standard Adam does not support sparse gradients; SparseAdam or SGD is needed.", "05_learning", "dynamics"),
    _c("C14", LONG, "Embedding是如何被学习的", "这解释了为什么一些大模型训练使用SGD而非Adam",
       "this explains why some large models are trained with SGD rather than Adam",
       "Sparse gradients (which Adam does not support) explain why some large models are trained with SGD rather than Adam.", "05_learning", "dynamics"),
    _c("C15", LONG, "Embedding是如何被学习的", "低频Token可能在整个训练过程中只出现几次，其Embedding几乎保持随机初始化状态",
       "a low-frequency token may occur only a few times in the whole of training, so its embedding stays almost at its random initialisation",
       "Frequent tokens are updated constantly; a rare token, which may occur only a few times in training, stays almost at its random initialisation.", "05_learning", "dynamics"),
    _c("C16", LONG, "Embedding是如何被学习的", "2018年的一项研究发现，将Embedding学习率设置为其他层的10倍（即Embedding层使用更大的学习率），能改善低频Token的表示质量",
       "a 2018 study found that setting the embedding learning rate to 10 times that of the other layers (that is, a larger learning rate for the embedding layer) improves the representations of low-frequency tokens",
       "A '2018 study': a 10x learning rate for the embedding layer improves rare-token representations.", "05_learning", "dynamics"),
    _c("C17", LONG, "嵌入维度：权衡的艺术", "维度过低会限制表示能力。如果 $d=64$，模型只能区分有限数量的语义概念，相似的词会被迫映射到相近的向量",
       "too low a dimension limits what can be represented. With $d = 64$ the model can tell only a limited number of semantic concepts apart, and similar words are forced onto nearby vectors",
       "Too small a $d$ limits what the model can represent: with $d = 64$ only a limited number of concepts can be told apart, and similar words are forced onto nearby vectors.",
       "07_dimension", "lm"),
    _c("C18", LONG, "嵌入维度：权衡的艺术", "Self-Attention的计算复杂度是 $O(n^2 \\cdot d)$",
       "the computational complexity of self-attention is $O(n^2 \\cdot d)$",
       "Self-attention costs $O(n^2 d)$.", "07_dimension", "sizing"),
    _c("C19", LONG, "嵌入维度：权衡的艺术", "$$N \\approx 12 \\times L \\times d^2$$",
       "$N \\approx 12 \\times L \\times d^2$",
       "$N \\approx 12 L d^2$, hence $d \\approx \\sqrt{N/(12L)}$, with the article's table of model sizes, layers and widths.", "03_sizing", "sizing"),
    _c("C20", LONG, "嵌入维度：权衡的艺术", "嵌入维度必须能被注意力头数整除",
       "the embedding dimension must be divisible by the number of attention heads",
       "$d$ must be divisible by the number of attention heads ($4096/32 = 128$).", "03_sizing", "sizing"),
    _c("C21", LONG, "初始化策略", "这是Xavier初始化的变体，确保前向传播时激活值的方差保持在合理范围",
       "this is a variant of Xavier initialisation, which keeps the variance of activations in the forward pass within a reasonable range",
       "$E_{ij} \\sim \\mathcal{N}(0, 1/\\sqrt{d})$, 'a variant of Xavier', keeps forward activations in a sane range.", "06_init", "init"),
    _c("C22", LONG, "初始化策略", "一些工作建议使用预训练的静态词向量（如Word2Vec或GloVe）初始化Embedding层，这能加速收敛，特别是在小数据场景",
       "some work suggests initialising the embedding layer with pretrained static word vectors (such as Word2Vec or GloVe); this speeds up convergence, especially with little data",
       "Some work suggests initialising from pretrained Word2Vec/GloVe vectors; this speeds up convergence, especially on small data.", "06_init", "init"),
    _c("C23", LONG, "初始化策略", "PyTorch的nn.Embedding默认使用标准正态分布 $\\mathcal{N}(0, 1)$ 初始化，而非Xavier初始化。这意味着在实际训练中，学习率warmup对Embedding层的稳定训练尤为重要",
       "PyTorch's nn.Embedding initialises from the standard normal distribution $\\mathcal{N}(0, 1)$ by default, not with Xavier initialisation. This means that in practice a learning-rate warm-up matters especially for training the embedding layer stably",
       "PyTorch's nn.Embedding initialises with $\\mathcal{N}(0, 1)$, not Xavier, so warm-up matters especially for training the embedding layer stably.", "06_init", "init"),
    _c("C24", LONG, "从Embedding到注意力：Q、K、V的来源", "$$\\mathbf{Q} = \\mathbf{X}\\mathbf{W}_Q, \\quad \\mathbf{K} = \\mathbf{X}\\mathbf{W}_K, \\quad \\mathbf{V} = \\mathbf{X}\\mathbf{W}_V$$",
       "the queries, keys and values are the embeddings X multiplied by three projection matrices: $Q = XW_Q$, $K = XW_K$, $V = XW_V$",
       "$Q = XW_Q$, $K = XW_K$, $V = XW_V$ with $d \\times d$ projections of the (position-added) embeddings.", "12_qkv", "contextual"),
    _c("C25", LONG, "最新研究：扩展Embedding的边界", "实验显示，在相同计算预算下，SCONE能将困惑度降低3-5%",
       "experiments show that, at the same compute budget, SCONE lowers perplexity by 3–5%",
       "SCONE keeps n-gram embeddings in CPU memory, loads them on demand, keeps accelerator memory fixed, and, at the same compute budget, lowers perplexity by 3–5%.",
       "14_scaling", "ngram"),
    _c("C26", LONG, "最新研究：扩展Embedding的边界", "高频功能词（如\"的\"、“是”）可能只需要较少维度就能充分表示，而低频实词可能需要更高维度。自适应Embedding根据Token频率动态分配维度，在不损失表示能力的前提下节省内存",
       "high-frequency function words (such as de and shi, roughly 'of' and 'is') may need only a few dimensions to be represented fully, while low-frequency content words may need more. Adaptive embeddings allocate dimensions by token frequency, saving memory without losing representational power",
       "Frequent function words may need fewer dimensions and rare content words more; adaptive embeddings allocate dimensions by frequency and save memory without losing representational power.", "14_scaling", "ngram"),
    _c("C27", LONG, "实践中的考量", "当前主流大模型的词表在30K-100K之间",
       "the vocabularies of today's mainstream large models lie between 30K and 100K",
       "Mainstream LLM vocabularies are 30K–100K.", "03_sizing", "sizing"),
    _c("C28", LONG, "实践中的考量", "将FP32 Embedding量化为INT8或INT4，能将内存占用减少4-8倍",
       "quantising FP32 embeddings to INT8 or INT4 cuts their memory 4- to 8-fold",
       "INT8 / INT4 quantisation cuts embedding memory 4x / 8x.", "13_quantize", "quantize"),
    _c("C29", LONG, "实践中的考量", "研究表明，Embedding层对量化相对鲁棒——相比于Attention层，量化的精度损失更小",
       "research shows that embedding layers are relatively robust to quantisation: compared with attention layers, they lose less accuracy",
       "Embedding layers are more robust to quantisation than attention layers.", "13_quantize", "quantize"),
    _c("C30", LONG, "实践中的考量", "一些实践建议对Embedding层使用较小的学习率，或完全冻结Embedding层只微调上层",
       "some practitioners recommend a smaller learning rate for the embedding layer, or freezing it entirely and fine-tuning only the layers above",
       "Some practices suggest a smaller learning rate for the embedding layer when fine-tuning, or freezing it and "
       "fine-tuning only the layers above; the article adds that this matters especially when the data differ much "
       "from the pre-training data.", "15_practice", "lm"),
    _c("C31", LONG, "实践中的考量", "更好的做法是使用子词分词（如BPE），将未登录词拆分为已知子词的组合，保证每个Token都有有意义的Embedding",
       "the better approach is subword tokenisation (such as BPE), which splits unseen words into combinations of known subwords, so that every token has a meaningful embedding",
       "Subword tokenisation (BPE) splits unseen words into known pieces so every token has a meaningful embedding.",
       "01_tokens", "tokenize"),
    _c("C32", LONG, "实践中的考量", "更大的词表意味着更少的Token数量（每个Token承载更多信息），但Embedding层参数量线性增长",
       "a larger vocabulary means fewer tokens (each carrying more information), but the embedding layer's parameters grow linearly",
       "A larger vocabulary means fewer tokens per text but linearly more embedding parameters.", "01_tokens", "tokenize"),
    _c("C33", SHORT, "进来的是编号，不是词", "一个汉字可能是一个 token，也可能和相邻的字合成一个；英文词也可能被拆成两三个片段。所以常说的\"上下文 32K\"是 token 数，不是字数，中文字数要按比例折算",
       "a Chinese character may be one token, or merge with its neighbours into one; an English word may also be split into two or three pieces. So the '32K context' people speak of counts tokens, not characters; a number of Chinese characters has to be converted at a ratio",
       "A Chinese character may be one token or merge with neighbours; an English word may split into 2–3 pieces; "
       "'32K context' counts tokens, not characters.", "01_tokens", "tokenize"),
    _c("C34", SHORT, "进来的是编号，不是词", "编号本身没有大小含义",
       "the ids themselves carry no meaning of magnitude",
       "Token ids carry no magnitude meaning: nearby ids are not nearby meanings.", "01_tokens", "tokenize"),
    _c("C35", SHORT, "发生的是查表，等价于一次矩阵乘法", "词表十万、维度一千，这张矩阵就有一亿个参数，在模型总参数里往往占不小的一块",
       "a vocabulary of a hundred thousand and a dimension of a thousand make a matrix of a hundred million parameters, often a sizeable share of the model's total",
       "Vocabulary 100K $\\times$ dimension 1,000 = 100M parameters, often a sizeable share of the model.", "03_sizing", "sizing"),
    _c("C36", SHORT, "发生的是查表，等价于一次矩阵乘法", "所以多语言模型的嵌入层通常比单语模型厚",
       "so multilingual models usually have thicker embedding layers than monolingual ones",
       "Multilingual models usually have thicker embedding layers than monolingual ones.", "03_sizing", "sizing"),
    _c("C37", SHORT, "发生的是查表，等价于一次矩阵乘法", "位置编码不在嵌入矩阵里，是另一套加进去的量",
       "positional encoding is not in the embedding matrix; it is a separate set of quantities added in",
       "Position information is added separately, not stored in the embedding matrix; later layers usually keep the "
       "dimension and change the values.", "02_lookup", "lookup"),
    _c("C38", SHORT, "那些数字是训练出来的", "为了让这两类上下文都预测得准，它们的向量会被拉到相近区域",
       "to predict both kinds of context well, their vectors are pulled into nearby regions",
       "Words that share contexts (苹果/香蕉 with 很甜, 多少钱一斤) are pulled together; similarity is a by-product "
       "of next-token prediction.", "05_learning", "dynamics"),
    _c("C39", SHORT, "那些数字是训练出来的", "所以向量反映的是语料里的用法，不是词典定义",
       "so the vectors reflect usage in the corpus, not dictionary definitions",
       "Vectors reflect usage in the corpus, not dictionary meaning: 苹果 lies near both 手机/发布会 and 水果/产地, leaning toward whichever pairing the training corpus has more of.",
       "10_word2vec", "word2vec"),
    _c("C40", SHORT, "距离怎么算，维度怎么选", "常用余弦相似度，看夹角不看长度。向量长度常被用来承载词频这类信息",
       "cosine similarity is the usual choice: it looks at the angle, not the length. Vector length is often used to carry information such as word frequency",
       "Cosine similarity ignores length; vector length often carries frequency information.", "08_similarity", "similarity"),
    _c("C41", SHORT, "距离怎么算，维度怎么选", "做检索前一般先归一化再算内积，结果等价，速度更快",
       "before retrieval one usually normalises first and then takes inner products: the result is equivalent, and faster",
       "Normalising first and then taking inner products gives the same result as cosine, and is faster for retrieval.",
       "08_similarity", "similarity"),
    _c("C42", SHORT, "距离怎么算，维度怎么选", "常见取值在几百到几千之间",
       "common values range from a few hundred to a few thousand",
       "Common dimensions range from hundreds to thousands.", "07_dimension", "sizing"),
    _c("C43", SHORT, "国王减男人加女人，边界在哪", "king 减 man 加 woman，最近邻是 queen。它在早期词向量上确实能复现",
       "king minus man plus woman has queen as its nearest neighbour. This really does reproduce on early word vectors",
       "king − man + woman has queen as nearest neighbour on early word vectors.", "09_analogies", "similarity"),
    _c("C44", SHORT, "国王减男人加女人，边界在哪", "它证明的是分布规律可被线性近似，不证明模型会做逻辑推理",
       "what it proves is that distributional regularities can be approximated linearly, not that the model can reason logically",
       "It shows that distributional regularities can be approximated linearly (offsets between vectors); it does not show that the model reasons.", "09_analogies", "similarity"),
    _c("C45", SHORT, "国王减男人加女人，边界在哪", "这类类比在低频词、专有名词、多义词上经常失效",
       "such analogies often fail on low-frequency words, proper nouns and polysemous words",
       "Analogies often fail on rare words, proper nouns and polysemous words.", "09_analogies", "similarity"),
    _c("C46", SHORT, "一张矩阵解决不了的事", "后来的上下文相关表示让同一个词在不同句子里得到不同向量，代价是每个 token 都要过一遍网络",
       "later context-dependent representations give the same word different vectors in different sentences, at the cost of running every token through the network",
       "Polysemy ('apple' fruit vs company) is resolved by contextual representations, not by the word's one row, at "
       "the cost of running the network per token.", "11_contextual", "contextual"),
    _c("C47", SHORT, "一张矩阵解决不了的事", "没见过的词，分词器拆成子词片段，向量由片段组合而来，能用但不精确。拼写错误、网络新词、专业缩写都属于这一类。语料里出现少的词，训练不足，位置会偏",
       "a word never seen is split by the tokenizer into subword pieces and its vector is assembled from them: usable, but imprecise. Misspellings, new internet words and technical abbreviations all belong here. Words that occur rarely in the corpus are undertrained and end up in the wrong place",
       "Unseen words are assembled from subword pieces: usable but imprecise; rare words are poorly placed.",
       "01_tokens", "tokenize"),
    _c("C48", SHORT, "一张矩阵解决不了的事", "向量空间是否对齐，取决于训练语料里有没有平行数据",
       "whether vector spaces are aligned depends on whether the training corpus contains parallel data",
       "Whether vector spaces are aligned depends on parallel data in the training corpus; unaligned, a word and its translation may lie far apart.", "15_practice", "align"),
    _c("C49", SHORT, "一张矩阵解决不了的事", "显存省了，向量的细微差别也被抹平，近邻排序可能变化",
       "memory is saved, but the fine differences between vectors are smoothed away too, and the order of nearest neighbours may change",
       "Quantising the embedding matrix blurs fine differences and can reorder nearest neighbours.", "13_quantize", "quantize"),
]}
# fmt: on


def claim(cid: str) -> Claim:
    """Return the claim with id ``cid`` (``"C01"`` … ``"C49"``); an unknown id raises ``KeyError``."""
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
    revised: str = ""  # if the rule was changed after its figures were seen: what it was before
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


def experiments_module(cid: str) -> str:
    """The module holding claim ``cid``'s experiment, rule and check: ``embedbook.experiments.chNN_name``."""
    return f"embedbook.experiments.ch{claim(cid).chapter}"


def _load(cid: str) -> None:
    if cid not in _RULES or cid not in _CHECKS:
        try:
            importlib.import_module(experiments_module(cid))
        except ModuleNotFoundError as err:
            if err.name != experiments_module(cid):
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


def run(cid: str, result: Any) -> Verdict:
    """Run claim ``cid``'s check on ``result`` (its chapter's measurement) and return the verdict."""
    fn = check_of(cid)
    if fn is None:
        raise LookupError(f"claim {cid} has no check yet (expected in {experiments_module(cid)})")
    v = fn(result)
    if not isinstance(v, Verdict) or v.claim_id != cid:
        raise TypeError(f"the check for {cid} must return a Verdict for {cid}, got {v!r}")
    return v


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
            if r.revised:
                parts.append(_("**Rule, revised after measuring.** It was: {old}").format(old=tr(r.revised))
                             + f"\n\n{r.markdown()}")
            else:
                parts.append(_("**Rule, declared before measuring.**") + f"\n{r.markdown()}")
        basis = _(" *Basis:* {words}.").format(words=basis_words(r.basis)) if r is not None else ""
        parts.append(_("**Evidence.**") + f"{basis} {v.text('evidence')}")
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
        "chapter": c.chapter,
        "size": "smoke" if smoke else "full",
        "basis": rule.basis if rule else None,
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
        return rule(record["figures"]) == record["verdict"]
    except (KeyError, ValueError, TypeError):  # figures the current rule no longer reads
        return False


def recorded_verdicts(smoke: bool) -> dict[str, dict]:
    """Every verdict the chapters recorded at this size, by claim id.

    Raises ``RuntimeError`` naming the claims whose verdict is missing, and those whose record is
    stale (the chapter changed since it ran): the verdicts chapter must show this build's verdicts.
    """
    store = verdict_store(smoke)
    records = {}
    if store is not None and store.exists():
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
    stale = [cid for cid, r in records.items() if r["chapter_sha256"] != book.chapter_digest(r["chapter"])]
    if stale:
        raise RuntimeError(
            f"the recorded verdicts of {', '.join(stale)} are stale: their chapters or experiments modules "
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
