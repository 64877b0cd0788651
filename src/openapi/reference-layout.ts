/**
 * Layout of what the reference page shows beyond its tables: the search box and its results, and the examples.
 * Only the palette's existing colours (reference-page.ts owns the palette).
 */
export const REFERENCE_ADDED_CSS = `.search{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin:0 0 1rem}
.search input{flex:1 1 16rem;min-width:0;font:inherit;padding:.3rem .5rem;border:1px solid #5a6577;border-radius:4px}
.search button{font:inherit;padding:.3rem .8rem}
.results{padding:.5rem .8rem;border:1px solid #dde2ea;border-radius:6px;background:#f4f6f9}
.matched{font-size:14px}
.sample{margin:.5rem 0}.sample figcaption{font-size:13px;font-weight:600;margin:.2rem 0}
.sample pre{margin:0;padding:.6rem .8rem;overflow-x:auto;background:#f1f3f6;border:1px solid #dde2ea;border-radius:4px}
.sample pre code{background:none;padding:0;white-space:pre}`;
