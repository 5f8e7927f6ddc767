/**
 * One database's world in the demo: the crowd engine that runs it and the views drawn from it. A new
 * database gets a new engine; the views (meshes, debug scene, charts) are kept and pointed at it.
 */
import type * as THREE from 'three';
import type { Database } from '../../src/database/database.js';
import { CrowdMesh, PlayerMesh, boneSegments } from './characters.js';
import { CostBars, DatabaseTimeline } from './debug-panels.js';
import { DebugScene } from './debug-scene.js';
import type { CrowdEngine } from './engines.js';
import type { Ui } from './ui.js';

export interface World {
  db: Database;
  name: string;
  engine: CrowdEngine;
  crowdMesh: CrowdMesh;
  playerMesh: PlayerMesh;
  debug: DebugScene;
  costBars: CostBars;
  timeline: DatabaseTimeline;
}

/** The world for `db` run by `engine`: `old`'s views set to the new database (its engine closed), or new views in `scene`. */
export function nextWorld(old: World | null, db: Database, name: string, engine: CrowdEngine, scene: THREE.Scene, ui: Ui): World {
  const segments = boneSegments(db);
  if (old) {
    old.crowdMesh.setSegments(segments);
    old.playerMesh.setSegments(segments);
    old.debug.setDatabase(db);
    old.costBars.setDatabase(db);
    old.timeline.setDatabase(db);
    void old.engine.close();
    return { ...old, db, name, engine };
  }
  return {
    db, name, engine,
    crowdMesh: new CrowdMesh(scene, segments),
    playerMesh: new PlayerMesh(scene, segments),
    debug: new DebugScene(scene, db),
    costBars: new CostBars(ui.costCanvas, db),
    timeline: new DatabaseTimeline(ui.timelineCanvas, db, ui.timelineHover),
  };
}
