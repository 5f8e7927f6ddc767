/**
 * How the demo server names a file it serves to the page (the --db database, the --character
 * file): a <meta name=NAME content=PATH data-name=FILE-NAME> element added to index.html, read
 * back by the page. Browser-safe: the page and the Node server share it.
 */

/** What a page was asked to load at start-up. */
export interface ServedFileRef {
  /** Absolute URL of the file. */
  url: string;
  /** What to call it on screen (the file's name). */
  name: string;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The <meta> element naming a file served at `path` and called `name` on screen. */
export function servedFileMetaTag(meta: string, path: string, name: string): string {
  return `<meta name="${meta}" content="${path}" data-name="${escapeAttribute(name)}" />`;
}

/** `html` with `tag` added at the end of its <head> (or at its start when it has none). */
export function withMetaTag(html: string, tag: string): string {
  const head = html.search(/<\/head\s*>/i);
  return head >= 0 ? `${html.slice(0, head)}    ${tag}\n  ${html.slice(head)}` : `${tag}\n${html}`;
}

/** The file the page's server named with the <meta name=`meta`> element, or null. */
export function servedFileRef(doc: Document, meta: string): ServedFileRef | null {
  const el = doc.querySelector(`meta[name="${meta}"]`);
  const content = el?.getAttribute('content');
  if (!el || !content) return null;
  const url = new URL(content, doc.baseURI).href;
  const name = el.getAttribute('data-name') || decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
  return { url, name };
}
