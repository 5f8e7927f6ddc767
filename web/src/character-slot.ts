/**
 * The user's character in the demo (a dropped .glb/.gltf/.vrm, `demo --character FILE`,
 * `?character=URL`): read, parsed and built aside, then swapped in between frames; rebuilt for
 * another database; dropped with one line on the page when it cannot be used, the scene left as it
 * was (the box figures, or the character loaded before).
 */
import type * as THREE from 'three';
import type { Database } from '../../src/database/database.js';
import { CharacterView, MAX_CHARACTER_CLONES, MAX_CHARACTER_CLONES_SOFTWARE, characterErrorMessage, disposeCharacterSource, parseCharacter } from './character.js';
import type { RetargetSource } from '../../src/three/index.js';
import type { MotionmatchCharacter } from './handle.js';
import { characterUrl } from './page-address.js';
import type { SceneView } from './scene.js';
import type { Ui } from './ui.js';

type Outcome = { ok: boolean; message: string };

/** What the slot needs of the page. */
export interface CharacterSlotHost {
  readonly ui: Ui;
  readonly view: SceneView;
  /** The database running now (null: none yet). */
  database(): Database | null;
  /** Runs `fn` between frames (after the step under way). */
  exclusive<T>(fn: () => T | Promise<T>): Promise<T>;
  /** A character could not be used: the page's last error. */
  failed(message: string): void;
}

export class CharacterSlot {
  /** The character drawn for the running database, or null: box figures. */
  view: CharacterView | null = null;
  /** The last character file that could not be used (one line), or null. */
  error: string | null = null;
  /** The loaded file's unposed scene (kept to rebuild the character for another database). */
  private source: { scene: THREE.Object3D; name: string } | null = null;

  constructor(private readonly host: CharacterSlotHost) {}

  /** Reads (`read`), parses and builds the character `name`, then swaps it in between frames. */
  async load(name: string, read: () => Promise<ArrayBuffer>): Promise<Outcome> {
    const ui = this.host.ui;
    ui.setProgress(0, `reading ${name}…`);
    try {
      const bytes = await read();
      ui.setProgress(0.5, `loading ${name}…`);
      const gltf = await parseCharacter(bytes, name);
      const view = await this.host.exclusive(() => {
        const db = this.host.database();
        if (!db) throw new Error('the page has no database yet');
        const made = this.make(gltf.scene, db, name);
        this.set(made, { scene: gltf.scene, name });
        return made;
      });
      this.error = null;
      ui.setCharacterError(null);
      const message = `character ${name}: ${view.boneMap.length} bones driven, leg ratio ${view.legRatio.toFixed(3)}`;
      ui.message(message, 'info');
      return { ok: true, message };
    } catch (e) {
      return this.fail(characterErrorMessage(name, e));
    } finally {
      ui.setProgress(null);
    }
  }

  /** A file the user chose or dropped. */
  loadFile(file: File): Promise<Outcome> {
    return this.load(file.name, () => file.arrayBuffer());
  }

  /** A character served at `url`, shown as `name`. */
  loadUrl(url: string, name: string): Promise<Outcome> {
    return this.load(name, async () => {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText} from ${url}`);
      return res.arrayBuffer();
    });
  }

  /** Back to the box figures, between frames. */
  clear(): Promise<void> {
    return this.host.exclusive(() => this.set(null, null));
  }

  /** `window.motionmatch.character` (handle.ts), sampling against the controller `player()` returns. */
  handle(player: () => RetargetSource | null): MotionmatchCharacter {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const slot = this;
    return {
      get loaded() { return slot.view !== null; },
      get name() { return slot.view?.name ?? null; },
      get boneMap() { return slot.view ? slot.view.boneMap.map((b) => ({ ...b })) : []; },
      get legRatio() { return slot.view?.legRatio ?? null; },
      get error() { return slot.error; },
      get clones() { return slot.view?.drawnClones ?? 0; },
      get maxClones() { return slot.view?.maxClones ?? 0; },
      sample: () => slot.view?.sample(player()) ?? null,
      boneMatrices: () => slot.view?.boneMatrices() ?? [],
      load: (url: string) => { const ref = characterUrl(String(url)); return slot.loadUrl(ref.url, ref.name); },
      loadFile: (file: File) => slot.loadFile(file),
      clear: () => slot.clear(),
    };
  }

  /** Another database: the character's retargeters are rebuilt for it (or it is dropped, with a message). */
  rebuild(db: Database): void {
    const src = this.source;
    if (!src || this.view?.db === db) return;
    try {
      this.set(this.make(src.scene, db, src.name), src);
    } catch (e) {
      this.set(null, null);
      this.fail(characterErrorMessage(src.name, e));
    }
  }

  /** Swaps the character in (null: back to the box figures); between frames. */
  set(view: CharacterView | null, source: { scene: THREE.Object3D; name: string } | null): void {
    this.view?.dispose();
    if (this.source && this.source.scene !== source?.scene) disposeCharacterSource(this.source.scene);
    this.view = view;
    this.source = source;
    this.host.ui.setCharacter(view ? { name: view.name, legRatio: view.legRatio, boneMap: view.boneMap, clones: view.maxClones } : null);
  }

  private make(scene: THREE.Object3D, db: Database, name: string): CharacterView {
    const v = this.host.view;
    return new CharacterView(v.scene, scene, db, name, v.software ? MAX_CHARACTER_CLONES_SOFTWARE : MAX_CHARACTER_CLONES);
  }

  /** A character that cannot be used: one line on the page; the scene stays as it is. */
  fail(message: string): Outcome {
    this.error = message;
    this.host.failed(message);
    this.host.ui.setCharacterError(message);
    this.host.ui.message(message, 'error');
    return { ok: false, message };
  }
}
