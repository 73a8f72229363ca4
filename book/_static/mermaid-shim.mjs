// sphinxcontrib-mermaid imports mermaid as an ES module. We serve mermaid's single-file build
// (mermaid.min.js, MIT, see mermaid.LICENSE) from the book itself — no CDN — so this shim loads
// it as a classic script next to this file and re-exports the global it defines.
await new Promise((resolve, reject) => {
  const script = document.createElement("script");
  script.src = new URL("./mermaid.min.js", import.meta.url).href;
  script.onload = resolve;
  script.onerror = () => reject(new Error("could not load the bundled mermaid.min.js"));
  document.head.appendChild(script);
});
export default globalThis.mermaid;
