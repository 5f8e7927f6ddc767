/**
 * How the demo server tells the page which database to start with (`motionmatch demo --db FILE`):
 * it serves the file at SERVED_DATABASE_PATH and names it in a <meta> element it adds to the
 * page's index.html. A page without that element (no --db, or web-dist/ hosted elsewhere) builds
 * the built-in database, with no extra request. Browser-safe: the page and the Node server share it.
 */
import { servedFileMetaTag, servedFileRef, withMetaTag, type ServedFileRef } from './served-file.js';

/** Where the server answers with the database file (outside anything vite emits into web-dist/). */
export const SERVED_DATABASE_PATH = '/__motionmatch/database.mmdb';

/** The <meta name=...> that carries the database's URL (content) and its name on screen (data-name). */
export const SERVED_DATABASE_META = 'motionmatch-database';

/** What a page was asked to load at start-up. */
export type ServedDatabaseRef = ServedFileRef;

/** The <meta> element the server adds to index.html for a database called `name`. */
export function servedDatabaseMetaTag(name: string): string {
  return servedFileMetaTag(SERVED_DATABASE_META, SERVED_DATABASE_PATH, name);
}

/** `html` with the database's <meta> element added at the end of its <head> (or at its start when it has none). */
export function withServedDatabaseMeta(html: string, name: string): string {
  return withMetaTag(html, servedDatabaseMetaTag(name));
}

/** The database the page's server named, or null (build the built-in one). */
export function servedDatabaseRef(doc: Document): ServedDatabaseRef | null {
  return servedFileRef(doc, SERVED_DATABASE_META);
}
