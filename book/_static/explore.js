/* "Explore the space" (book/explore.md): nearest neighbours, analogies, cosines, a PCA map and the fp32 / INT8 /
   INT4 switch, computed in the reader's browser from the tables in _static/explore/<lang>.js (written at build
   time by embedbook/book/explore.py: float16 rows, widened to float32 here). The arithmetic follows
   embedbook.similarity (unit rows: divide by the row's absmax, then by its norm; 3CosAdd on unit rows; ties go
   to the lower row) and embedbook.quantize (row-wise symmetric absmax: scale = absmax / 127 or / 7, the INT4
   scale rounded to fp16's 11 significant bits, codes rounded half to even), so that
   tests/after_book/test_explore.py finds the same answers as the package. Plain JavaScript, no network. */
(function () {
  "use strict";
  var script = document.currentScript;
  var BASE = script ? script.src.replace(/explore\.js(\?.*)?$/, "explore/") : "../_static/explore/";
  var ZH = (document.documentElement.lang || "").toLowerCase().indexOf("zh") === 0;
  // every text the tool shows, in both editions (one source: the English beside its Chinese)
  var T = {
    table: ["Table", "词表"],
    precision: ["Precision", "精度"],
    en: ["English: GloVe 6B 50d", "英文：GloVe 6B 50d"],
    zh: ["Chinese: Word2Vec (People's Daily)", "中文：Word2Vec（人民日报）"],
    fp32: ["fp32", "fp32"], int8: ["INT8 (row-wise)", "INT8（逐行）"], int4: ["INT4 (row-wise)", "INT4（逐行）"],
    near: ["Nearest neighbours", "最近邻"], word: ["Word", "词"], go: ["Show", "显示"],
    analogy: ["Analogy a : b :: c : ?", "类比 a : b :: c : ?"],
    excluded: ["inputs excluded", "排除输入词"], included: ["inputs included", "包含输入词"],
    cosine: ["Cosine of two words", "两个词的余弦"], map: ["Map of your words (PCA, 2-D)", "你输入的词的地图（PCA，二维）"],
    clear: ["Clear the map", "清空地图"],
    rank: ["#", "#"], cos: ["cosine", "余弦"], fp32rank: ["rank in fp32", "fp32 中的名次"],
    newin: ["new", "新出现"], dropped: ["Left the list at this precision: ", "在此精度下掉出列表："],
    same: ["The same neighbours as in fp32 (their order may differ).", "与 fp32 的近邻相同（顺序可能不同）。"],
    unknown: ["“{w}” is not in this table ({n} words).", "“{w}”不在这个词表中（共 {n} 个词）。"],
    suggest: [" Did you mean: ", "你是不是要找："], nosuggest: [" No close word found.", "没有找到相近的词。"],
    loading: ["Loading the table…", "正在加载词表…"],
    failed: ["The table could not be loaded.", "词表加载失败。"],
    mapfew: ["Enter two or more known words in the boxes above to see them on the map.",
             "在上面的输入框中输入两个或更多词表中的词，它们就会出现在地图上。"],
    same3: ["Enter three words.", "请输入三个词。"], two: ["Enter two words.", "请输入两个词。"],
    cosof: ["cos({a}, {b}) = {c}", "cos({a}, {b}) = {c}"],
    zero: ["“{w}” has an all-zero vector: it has no direction.", "“{w}”的向量全为零，没有方向。"],
    timing: ["computed in {ms} ms in your browser", "在你的浏览器中用时 {ms} 毫秒"]
  };
  function t(key, vars) {
    var s = T[key][ZH ? 1 : 0];
    for (var k in vars || {}) s = s.split("{" + k + "}").join(vars[k]);
    return s;
  }

  // --- numbers -------------------------------------------------------------------------------------------
  var F16 = new Float32Array(65536);  // every float16 bit pattern's value
  (function () {
    for (var h = 0; h < 65536; h++) {
      var s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
      F16[h] = e === 0 ? s * m * Math.pow(2, -24) : e === 31 ? (m ? NaN : s * Infinity) : s * (1024 + m) * Math.pow(2, e - 25);
    }
  })();
  var fround = Math.fround;
  var QMAX = {8: 127, 4: 7};
  var TINY = 1.1754943508222875e-38;  // float32's smallest normal
  var bitsBuf = new ArrayBuffer(4), asF = new Float32Array(bitsBuf), asI = new Int32Array(bitsBuf);

  function halfPrecision(x) {  // embedbook.quantize._to_half_precision: 11 significant bits, ties to even
    if (!(x >= TINY)) return x;
    asF[0] = x;
    var b = asI[0];
    asI[0] = (b + 0xfff + ((b >> 13) & 1)) & ~0x1fff;
    return asF[0];
  }
  function roundEven(v) {  // torch.round: half to even
    var f = Math.floor(v), d = v - f;
    return d > 0.5 ? f + 1 : d < 0.5 ? f : (f % 2 === 0 ? f : f + 1);
  }
  function quantized(x, n, d, bits) {  // the row-wise symmetric absmax round trip, float32
    var out = new Float32Array(n * d), qmax = QMAX[bits];
    for (var i = 0; i < n; i++) {
      var o = i * d, m = 0;
      for (var j = 0; j < d; j++) m = Math.max(m, Math.abs(x[o + j]));
      var scale = fround(m / qmax);
      if (bits === 4) scale = halfPrecision(scale);
      var div = scale > 0 ? scale : 1;
      for (j = 0; j < d; j++) {
        var c = roundEven(fround(x[o + j] / div));
        c = Math.max(-qmax, Math.min(qmax, c));
        out[o + j] = fround(c * scale);
      }
    }
    return out;
  }
  function unitRows(x, n, d) {  // embedbook.stats.unit_rows(zero="keep"): absmax first, then the norm
    var out = new Float32Array(n * d), zero = new Uint8Array(n), y = new Float64Array(d);
    for (var i = 0; i < n; i++) {
      var o = i * d, m = 0, j;
      for (j = 0; j < d; j++) m = Math.max(m, Math.abs(x[o + j]));
      if (m === 0) { zero[i] = 1; continue; }
      var ss = 0;
      for (j = 0; j < d; j++) { y[j] = fround(x[o + j] / m); ss += y[j] * y[j]; }
      var norm = fround(Math.sqrt(ss));
      for (j = 0; j < d; j++) out[o + j] = fround(y[j] / norm);
    }
    return {unit: out, zero: zero};
  }

  // --- tables --------------------------------------------------------------------------------------------
  var tables = {};  // lang -> {words, index, n, d, raw, spaces: {32|8|4: {unit, zero}}}
  var waiting = {};
  function decode(src) {
    var bin = atob(src.vectors), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var half = new Uint16Array(bytes.buffer), raw = new Float32Array(half.length);
    for (i = 0; i < half.length; i++) raw[i] = F16[half[i]];
    var words = src.words.split("\n"), index = Object.create(null);
    for (i = 0; i < words.length; i++) index[words[i]] = i;
    return {lang: src.lang, name: src.name, words: words, index: index, n: src.n, d: src.d, raw: raw, spaces: {}};
  }
  function load(lang, done) {
    if (tables[lang]) return done(tables[lang]);
    var store = window.EXPLORE_TABLES || {};
    if (store[lang]) { tables[lang] = decode(store[lang]); delete store[lang]; return done(tables[lang]); }
    if (waiting[lang]) return waiting[lang].push(done);
    waiting[lang] = [done];
    var el = document.createElement("script");
    el.src = BASE + lang + ".js";
    el.onload = function () {
      var list = waiting[lang]; delete waiting[lang];
      var src = (window.EXPLORE_TABLES || {})[lang];
      if (src) { tables[lang] = decode(src); delete window.EXPLORE_TABLES[lang]; }
      list.forEach(function (f) { f(tables[lang] || null); });
    };
    el.onerror = function () { var list = waiting[lang]; delete waiting[lang]; list.forEach(function (f) { f(null); }); };
    document.head.appendChild(el);
  }
  function space(tab, bits) {  // the unit rows of the table at a precision, made once
    if (!tab.spaces[bits]) {
      var x = bits === 32 ? tab.raw : quantized(tab.raw, tab.n, tab.d, bits);
      tab.spaces[bits] = unitRows(x, tab.n, tab.d);
    }
    return tab.spaces[bits];
  }

  // --- queries (as embedbook.similarity) -----------------------------------------------------------------
  function top(sp, n, d, q, k, skip) {  // the k rows of highest dot product with q, best first, ties: lower row
    var ids = [], sc = [], u = sp.unit;
    for (var i = 0; i < n; i++) {
      if (sp.zero[i] || (skip && skip.indexOf(i) >= 0)) continue;
      var o = i * d, s = 0;
      for (var j = 0; j < d; j++) s += u[o + j] * q[j];
      s = fround(s);
      if (ids.length === k && !(s > sc[k - 1])) continue;
      if (ids.length < k) { ids.push(i); sc.push(s); } else { ids[k - 1] = i; sc[k - 1] = s; }
      var p = ids.length - 1;
      while (p > 0 && sc[p - 1] < s) { sc[p] = sc[p - 1]; ids[p] = ids[p - 1]; p--; }
      ids[p] = i; sc[p] = s;
    }
    return {ids: ids, scores: sc};
  }
  function row(sp, d, i) { return sp.unit.subarray(i * d, (i + 1) * d); }
  function neighbours(tab, i, k, bits) {
    var sp = space(tab, bits);
    if (sp.zero[i]) return null;
    return top(sp, tab.n, tab.d, row(sp, tab.d, i), k, [i]);
  }
  function analogy(tab, ia, ib, ic, k, exclude, bits) {  // 3CosAdd: unit(b) - unit(a) + unit(c), made unit
    var sp = space(tab, bits), d = tab.d, q = new Float32Array(d);
    var a = row(sp, d, ia), b = row(sp, d, ib), c = row(sp, d, ic);
    for (var j = 0; j < d; j++) q[j] = fround(fround(b[j] - a[j]) + c[j]);
    var qs = unitRows(q, 1, d);
    if (qs.zero[0]) return null;
    return top(sp, tab.n, d, qs.unit, k, exclude ? [ia, ib, ic] : []);
  }
  function cosine(tab, i, j, bits) {
    var sp = space(tab, bits), d = tab.d, s = 0;
    if (sp.zero[i] || sp.zero[j]) return null;
    for (var x = 0; x < d; x++) s += sp.unit[i * d + x] * sp.unit[j * d + x];
    return fround(s);
  }

  // --- words as the reader types them ---------------------------------------------------------------------
  function normalise(w) { return (w || "").normalize("NFKC").toLowerCase().trim(); }
  function edit(a, b, most) {  // Levenshtein distance, or most + 1 once it is beyond most
    if (Math.abs(a.length - b.length) > most) return most + 1;
    var prev = [], cur = [], i, j;
    for (j = 0; j <= b.length; j++) prev[j] = j;
    for (i = 1; i <= a.length; i++) {
      cur = [i]; var low = i;
      for (j = 1; j <= b.length; j++) {
        cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        low = Math.min(low, cur[j]);
      }
      if (low > most) return most + 1;
      prev = cur;
    }
    return prev[b.length];
  }
  function suggestions(tab, w, n) {  // close spellings first, then words that hold it or that it holds (苹果树林:
    // 苹果, 树林), most frequent first
    var scored = [], most = w.length > 4 ? 2 : 1;
    for (var i = 0; i < tab.n; i++) {
      var x = tab.words[i], e = edit(w, x, most);
      if (e <= most) scored.push([e, i]);
      else if ((w.length > 1 && x.indexOf(w) >= 0) || (x.length > 1 && w.indexOf(x) >= 0)) scored.push([most + 1, i]);
    }
    scored.sort(function (p, q) { return p[0] - q[0] || p[1] - q[1]; });
    return scored.slice(0, n).map(function (p) { return tab.words[p[1]]; });
  }

  // --- the page ------------------------------------------------------------------------------------------
  var state = {lang: ZH ? "zh" : "en", bits: 32, entered: []};
  var K = 10;
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    for (var a in attrs || {}) {
      if (a === "text") e.textContent = attrs[a]; else e.setAttribute(a, attrs[a]);
    }
    (kids || []).forEach(function (k) { e.appendChild(k); });
    return e;
  }
  function field(id, label) {
    return el("label", {"for": id, "class": "explore-field"}, [el("span", {text: label}),
      el("input", {id: id, type: "text", autocomplete: "off", autocapitalize: "off", spellcheck: "false"})]);
  }
  function value(id) { return normalise(document.getElementById(id).value); }
  function say(box, text) { box.textContent = text; }
  function fmt(x) { return x.toFixed(3); }

  function lookup(tab, w, box) {  // a word's row, or null with a message and suggestions in box
    var i = tab.index[w];
    if (i !== undefined) return i;
    var s = suggestions(tab, w, 5);
    box.textContent = t("unknown", {w: w, n: tab.n.toLocaleString()}) + (s.length ? t("suggest") : t("nosuggest"));
    s.forEach(function (x, k) {
      var b = el("button", {type: "button", "class": "explore-suggestion", text: x});
      b.addEventListener("click", function () { box.dispatchEvent(new CustomEvent("pick", {detail: {from: w, to: x}})); });
      box.appendChild(b);
      if (k < s.length - 1) box.appendChild(document.createTextNode(" "));
    });
    return null;
  }
  function remember(words) {
    words.forEach(function (w) {
      var at = state.entered.indexOf(w);
      if (at >= 0) state.entered.splice(at, 1);
      state.entered.push(w);
    });
    state.entered = state.entered.slice(-24);
    drawMap();
  }
  function resultTable(tab, res, reference) {  // rank, word, cosine (and its fp32 rank when quantised)
    var head = [t("rank"), t("word"), t("cos")].concat(reference ? [t("fp32rank")] : []);
    var tb = el("tbody");
    res.ids.forEach(function (id, r) {
      var cells = [el("td", {text: String(r + 1)}), el("td", {text: tab.words[id]}), el("td", {text: fmt(res.scores[r])})];
      if (reference) {
        var at = reference.ids.indexOf(id);
        cells.push(el("td", {text: at >= 0 ? String(at + 1) : t("newin"), "class": at >= 0 ? "" : "explore-moved"}));
      }
      tb.appendChild(el("tr", {}, cells));
    });
    return el("table", {"class": "explore-table"}, [el("thead", {}, [el("tr", {}, head.map(function (h) {
      return el("th", {text: h}); }))]), tb]);
  }

  function runNear(strict) {
    var w = value("explore-near-word"), out = document.getElementById("explore-near-out");
    if (!w) return;
    withTable(function (tab) {
      var i = tab.index[w];
      out.textContent = "";  // a word this table lacks leaves no other table's results on screen
      if (i === undefined && !strict) return;
      if ((i = lookup(tab, w, out)) === null) return;
      var start = performance.now(), res = neighbours(tab, i, K, state.bits);
      if (!res) return say(out, t("zero", {w: w}));
      var ref = state.bits === 32 ? null : neighbours(tab, i, K, 32);
      out.appendChild(resultTable(tab, res, ref));
      if (ref) {
        var gone = ref.ids.filter(function (id) { return res.ids.indexOf(id) < 0; }).map(function (id) { return tab.words[id]; });
        out.appendChild(el("p", {text: gone.length ? t("dropped") + gone.join(", ") : t("same")}));
      }
      out.appendChild(el("p", {"class": "explore-time", text: t("timing", {ms: (performance.now() - start).toFixed(1)})}));
      remember([w]);
      setHash("near=" + encodeURIComponent(w));
    });
  }
  function runAnalogy(strict) {
    var ws = ["explore-a", "explore-b", "explore-c"].map(value), out = document.getElementById("explore-analogy-out");
    if (!ws[0] && !ws[1] && !ws[2]) return;
    withTable(function (tab) {
      out.textContent = "";
      if (ws.some(function (w) { return !w || tab.index[w] === undefined; }) && !strict) return;
      if (ws.some(function (w) { return !w; })) return say(out, t("same3"));
      var ids = [];
      for (var x = 0; x < 3; x++) {
        var box = el("p");
        var i = lookup(tab, ws[x], box);
        if (i === null) { out.appendChild(box); return; }
        ids.push(i);
      }
      var start = performance.now();
      var ex = analogy(tab, ids[0], ids[1], ids[2], 5, true, state.bits);
      var inc = analogy(tab, ids[0], ids[1], ids[2], 5, false, state.bits);
      if (!ex) return say(out, t("zero", {w: ws.join(" − ")}));
      var cols = el("div", {"class": "explore-columns"}, [
        el("div", {}, [el("p", {"class": "explore-caption", text: t("excluded")}), resultTable(tab, ex)]),
        el("div", {}, [el("p", {"class": "explore-caption", text: t("included")}), resultTable(tab, inc)])]);
      out.appendChild(cols);
      out.appendChild(el("p", {"class": "explore-time", text: t("timing", {ms: (performance.now() - start).toFixed(1)})}));
      remember(ws.concat([tab.words[ex.ids[0]]]));
      setHash("analogy=" + ws.map(encodeURIComponent).join(","));
    });
  }
  function runCosine(strict) {
    var ws = ["explore-x", "explore-y"].map(value), out = document.getElementById("explore-cos-out");
    if (!ws[0] && !ws[1]) return;
    withTable(function (tab) {
      out.textContent = "";
      if (ws.some(function (w) { return !w || tab.index[w] === undefined; }) && !strict) return;
      if (!ws[0] || !ws[1]) return say(out, t("two"));
      var i = lookup(tab, ws[0], out);
      if (i === null) return;
      var j = lookup(tab, ws[1], out);
      if (j === null) return;
      var c = cosine(tab, i, j, state.bits);
      if (c === null) return say(out, t("zero", {w: ws.join(", ")}));
      say(out, t("cosof", {a: ws[0], b: ws[1], c: c.toFixed(4)}));
      remember(ws);
      setHash("cos=" + ws.map(encodeURIComponent).join(","));
    });
  }

  function pca2(X, n, d) {  // the two leading principal axes of n centred rows (power iteration, deflated)
    var mean = new Float64Array(d), i, j, k;
    for (i = 0; i < n; i++) for (j = 0; j < d; j++) mean[j] += X[i][j] / n;
    var C = [];
    for (j = 0; j < d; j++) C.push(new Float64Array(d));
    for (i = 0; i < n; i++) for (j = 0; j < d; j++) for (k = 0; k < d; k++)
      C[j][k] += (X[i][j] - mean[j]) * (X[i][k] - mean[k]);
    var axes = [];
    for (var a = 0; a < 2; a++) {
      var v = new Float64Array(d);
      for (j = 0; j < d; j++) v[j] = 1 + j / d;  // a fixed start: the same map every time
      for (var it = 0; it < 200; it++) {
        var w = new Float64Array(d), norm = 0;
        for (j = 0; j < d; j++) for (k = 0; k < d; k++) w[j] += C[j][k] * v[k];
        axes.forEach(function (u) { var p = 0; for (var q = 0; q < d; q++) p += w[q] * u[q]; for (q = 0; q < d; q++) w[q] -= p * u[q]; });
        for (j = 0; j < d; j++) norm += w[j] * w[j];
        norm = Math.sqrt(norm);
        if (norm === 0) break;
        for (j = 0; j < d; j++) v[j] = w[j] / norm;
      }
      axes.push(v);
    }
    return X.map(function (x) {
      return axes.map(function (u) { var p = 0; for (var q = 0; q < d; q++) p += (x[q] - mean[q]) * u[q]; return p; });
    });
  }
  function drawMap() {
    var box = document.getElementById("explore-map");
    if (!box) return;
    var tab = tables[state.lang];
    box.textContent = "";
    var known = tab ? state.entered.filter(function (w) { return tab.index[w] !== undefined; }) : [];
    if (known.length < 2) return box.appendChild(el("p", {text: t("mapfew")}));
    var sp = space(tab, state.bits), d = tab.d;
    var pts = pca2(known.map(function (w) { return row(sp, d, tab.index[w]); }), known.length, d);
    var W = 640, H = 360, pad = 40, xs = pts.map(function (p) { return p[0]; }), ys = pts.map(function (p) { return p[1]; });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs), y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    var NS = "http://www.w3.org/2000/svg", svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", t("map") + ": " + known.join(", "));
    svg.setAttribute("class", "explore-svg");
    pts.forEach(function (p, i) {
      var cx = pad + (x1 > x0 ? (p[0] - x0) / (x1 - x0) : 0.5) * (W - 2 * pad);
      var cy = H - pad - (y1 > y0 ? (p[1] - y0) / (y1 - y0) : 0.5) * (H - 2 * pad);
      var c = document.createElementNS(NS, "circle");
      c.setAttribute("cx", cx.toFixed(1)); c.setAttribute("cy", cy.toFixed(1)); c.setAttribute("r", "4");
      var label = document.createElementNS(NS, "text");
      var right = cx > W / 2;  // a label on the right half runs leftwards, so it stays inside the picture
      label.setAttribute("x", (right ? cx - 7 : cx + 7).toFixed(1)); label.setAttribute("y", (cy + 4).toFixed(1));
      if (right) label.setAttribute("text-anchor", "end");
      label.textContent = known[i];
      svg.appendChild(c); svg.appendChild(label);
    });
    box.appendChild(svg);
  }

  var pending = null;
  function withTable(f) {
    var want = state.lang;
    if (tables[want]) return f(tables[want]);
    var status = document.getElementById("explore-status");
    if (status) say(status, t("loading"));
    pending = f;
    load(want, function (tab) {
      if (status) say(status, tab ? t(tab.lang) + " · " + tab.n.toLocaleString() + " × " + tab.d : t("failed"));
      if (tab && pending === f && state.lang === want) { pending = null; f(tab); drawMap(); }
    });
  }
  function rerun() { runNear(false); runAnalogy(false); runCosine(false); drawMap(); }

  var hashSetByUs = null;
  function setHash(h) {
    var full = "#" + h + (state.lang !== (ZH ? "zh" : "en") ? "&table=" + state.lang : "") +
               (state.bits !== 32 ? "&bits=" + state.bits : "");
    if (location.hash !== full && history.replaceState) { hashSetByUs = full; history.replaceState(null, "", full); }
  }
  function readHash() {
    var h = location.hash.replace(/^#/, ""), q = {};
    if (!h || h === hashSetByUs) return;
    h.split("&").forEach(function (part) {
      var at = part.indexOf("=");
      if (at > 0) q[part.slice(0, at)] = part.slice(at + 1).split(",").map(function (s) {
        try { return decodeURIComponent(s); } catch (e) { return s; } });
    });
    if (q.table && (q.table[0] === "en" || q.table[0] === "zh")) { state.lang = q.table[0]; document.getElementById("explore-table").value = state.lang; }
    if (q.bits && /^(32|8|4)$/.test(q.bits[0])) { state.bits = +q.bits[0]; document.getElementById("explore-bits").value = q.bits[0]; }
    function put(ids, ws) { ids.forEach(function (id, i) { document.getElementById(id).value = ws[i] || ""; }); }
    if (q.near) { put(["explore-near-word"], q.near); runNear(true); }
    if (q.analogy) { put(["explore-a", "explore-b", "explore-c"], q.analogy); runAnalogy(true); }
    if (q.cos) { put(["explore-x", "explore-y"], q.cos); runCosine(true); }
    var focus = q.near ? "explore-near-word" : q.analogy ? "explore-c" : q.cos ? "explore-y" : null;
    if (focus) document.getElementById(focus).scrollIntoView({block: "center"});
  }

  function section(title, id, fields, run) {
    var form = el("form", {"class": "explore-form", id: id + "-form"}, fields.concat([el("button", {type: "submit", text: t("go")})]));
    var out = el("div", {id: id + "-out", "class": "explore-out", "aria-live": "polite"});
    form.addEventListener("submit", function (e) { e.preventDefault(); run(true); });
    var timer = null;
    form.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(function () { run(false); }, 120); });
    out.addEventListener("pick", function (e) {  // a suggestion clicked: put it in place of the unknown word
      form.querySelectorAll("input").forEach(function (inp) { if (normalise(inp.value) === e.detail.from) inp.value = e.detail.to; });
      run(true);
    });
    return el("section", {"class": "explore-section"}, [el("h3", {text: title}), form, out]);
  }
  function build(root) {
    var tableSel = el("select", {id: "explore-table"}, [el("option", {value: "en", text: t("en")}), el("option", {value: "zh", text: t("zh")})]);
    var bitsSel = el("select", {id: "explore-bits"}, [el("option", {value: "32", text: t("fp32")}),
      el("option", {value: "8", text: t("int8")}), el("option", {value: "4", text: t("int4")})]);
    tableSel.value = state.lang;
    root.appendChild(el("div", {"class": "explore-controls"}, [
      el("label", {"for": "explore-table"}, [el("span", {text: t("table") + " "}), tableSel]),
      el("label", {"for": "explore-bits"}, [el("span", {text: t("precision") + " "}), bitsSel]),
      el("span", {id: "explore-status", "class": "explore-status", "aria-live": "polite"})]));
    root.appendChild(section(t("near"), "explore-near", [field("explore-near-word", t("word"))], runNear));
    root.appendChild(section(t("analogy"), "explore-analogy", [field("explore-a", "a"), field("explore-b", "b"), field("explore-c", "c")], runAnalogy));
    root.appendChild(section(t("cosine"), "explore-cos", [field("explore-x", t("word") + " 1"), field("explore-y", t("word") + " 2")], runCosine));
    var clear = el("button", {type: "button", text: t("clear")});
    clear.addEventListener("click", function () { state.entered = []; drawMap(); });
    root.appendChild(el("section", {"class": "explore-section"}, [el("h3", {text: t("map")}), clear,
      el("div", {id: "explore-map", "class": "explore-map"})]));
    tableSel.addEventListener("change", function () { state.lang = tableSel.value; state.entered = []; withTable(function () { rerun(); }); });
    bitsSel.addEventListener("change", function () { state.bits = +bitsSel.value; withTable(function () { rerun(); }); });
    window.addEventListener("hashchange", readHash);
    withTable(function () { drawMap(); readHash(); });
  }

  // for the book's tests (tests/after_book/test_explore.py): the same queries without the page's widgets
  window.Explore = {
    load: load, normalise: normalise, suggestions: suggestions,
    neighbours: function (tab, word, k, bits) { return neighbours(tab, tab.index[word], k, bits); },
    analogy: function (tab, a, b, c, k, exclude, bits) {
      return analogy(tab, tab.index[a], tab.index[b], tab.index[c], k, exclude, bits); },
    cosine: function (tab, a, b, bits) { return cosine(tab, tab.index[a], tab.index[b], bits); }
  };
  var root = document.getElementById("explore-app");
  if (root) build(root);
})();
