/**
 * What the page's address asks of the demo: `?character=URL`, `?budget=R`, `?unseen=N` (and the
 * server's `--character` file, written into the page). Values that cannot be used are ignored, as
 * a browser ignores unknown query parameters; the handle's setters refuse them with an error.
 */
import { UNSEEN_STEP_EVERY, isUnseenStepEvery } from '../../src/runtime/lod/view.js';
import { servedCharacterRef, type ServedCharacterRef } from '../../src/web/served-character.js';

/** `?character=URL` in the page's address, else the server's `--character` file, else null. */
export function characterRef(): ServedCharacterRef | null {
  const wanted = new URLSearchParams(location.search).get('character');
  return wanted ? characterUrl(wanted) : servedCharacterRef(document);
}

/** A character URL (relative to the page) and the file name it shows. */
export function characterUrl(wanted: string): ServedCharacterRef {
  try {
    const url = new URL(wanted, location.href);
    const last = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
    let name = last;
    try { name = decodeURIComponent(last); } catch { /* keep it encoded */ }
    return { url: url.href, name: name || url.href };
  } catch {
    return { url: wanted, name: wanted };
  }
}

/** `?budget=R`: a search budget of R searches per agent-second (ignored unless a finite number > 0). */
export function budgetFromUrl(v: string | null): number | null {
  const r = v === null ? Number.NaN : Number(v);
  return Number.isFinite(r) && r > 0 ? r : null;
}
/** `?unseen=N`: agents out of view step every N frames (ignored unless an integer from 1 to 60). */
export function unseenFromUrl(v: string | null): number {
  const n = v === null ? Number.NaN : Number(v);
  return isUnseenStepEvery(n) ? n : UNSEEN_STEP_EVERY;
}
