/**
 * How the demo server tells the page which database to start with (`motionmatch demo --db FILE`):
 * it serves the file at SERVED_DATABASE_PATH and names it in a <meta> element it adds to the
 * page's index.html. A page without that element (no --db, or web-dist/ hosted elsewhere) builds
 * the built-in database, with no extra request. Browser-safe: the page and the Node server share it.
 */

/** Where the server answers with the database file (outside anything vite emits into web-dist/). */
export const SERVED_DATABASE_PATH = '/__motionmatch/database.mmdb';

/** The <meta name=...> that carries the database's URL (content) and its name on screen (data-name). */
export const SERVED_DATABASE_META = 'motionmatch-database';

/** What a page was asked to load at start-up. */
export interface ServedDatabaseRef {
  /** Absolute URL of the .mmdb file. */
  url: string;
  /** What to call it on screen (the file's name). */
  name: string;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The <meta> element the server adds to index.html for a database called `name`. */
export function servedDatabaseMetaTag(name: string): string {
  return `<meta name="${SERVED_DATABASE_META}" content="${SERVED_DATABASE_PATH}" data-name="${escapeAttribute(name)}" />`;
}

/** `html` with the database's <meta> element added at the end of its <head> (or at its start when it has none). */
export function withServedDatabaseMeta(html: string, name: string): string {
  const tag = servedDatabaseMetaTag(name);
  const head = html.search(/<\/head\s*>/i);
  return head >= 0 ? `${html.slice(0, head)}    ${tag}\n  ${html.slice(head)}` : `${tag}\n${html}`;
}

/** The database the page's server named, or null (build the built-in one). */
export function servedDatabaseRef(doc: Document): ServedDatabaseRef | null {
  const meta = doc.querySelector(`meta[name="${SERVED_DATABASE_META}"]`);
  const content = meta?.getAttribute('content');
  if (!meta || !content) return null;
  const url = new URL(content, doc.baseURI).href;
  const name = meta.getAttribute('data-name') || decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
  return { url, name };
}
