/**
 * The engine's portable API: everything that runs the same in Node and in a browser, in data-flow
 * order (import -> features -> database -> search -> runtime -> simulation -> tools). Nothing
 * reachable from here imports a `node:` module. The package's two entries re-export it:
 * src/index.ts (Node: adds file reading and writing, worker threads, V8 flags, the simulation run)
 * and src/browser.ts (bundlers building for a browser: adds the packaged WASM builds as URLs).
 */

// math
export * from './math/quat.js';
export * from './math/spring.js';
export { solveTwoBoneIk, createTwoBoneIkScratch, TWO_BONE_IK_EPS } from './math/two-bone-ik.js';

// skeleton, clips, poses
export type { Skeleton } from './anim/skeleton.js';
export { validateSkeleton, jointIndex, jointCount } from './anim/skeleton.js';
export type { Clip } from './anim/clip.js';
export { MIN_FPS, MAX_FPS, isSupportedFrameRate } from './anim/frame-rate.js';
export { sampleClipPose, forwardKinematics, worldPositionsOfFrames, worldTransformsOfFrames } from './anim/pose.js';

// import
export { parseBvh, snapFrameRate, type BvhImport, type BvhParseOptions } from './import/bvh/bvh.js';
export { BvhError } from './import/errors.js';
export { writeBvh } from './import/bvh/write.js';

// built-in data
export { generateBuiltinClips } from './builtin/generate.js';

// features
export { DEFAULT_SCHEMA, schemaDims, paddedStride, type FeatureSchema, type FeatureGroup, type BoneRole } from './features/schema.js';
export { parseSchemaJson, validateSchema, SchemaError } from './features/schema-validate.js';
export { findBoneRoles, parseBoneOverrides, BoneRoleError } from './features/roles.js';
export { mirrorClip, mirrorSetup } from './features/mirror.js';

// database
export type { Database, ClipRange } from './database/database.js';
export { CONTACT_LEFT, CONTACT_RIGHT } from './features/contacts.js';
export { buildDatabase, DatabaseBuildError, type BuildOptions, type SourceMotion } from './database/build.js';
export {
  encodeDatabase, decodeDatabase, inspectDatabase, checkDatabaseConsistency, checkSearchableDatabase,
  encodeCompactDatabase, DatabaseFormatError, MMDB_FORMAT_VERSION, MMDB_COMPACT_VERSION, type MmdbInfo,
  type EncodeCompactOptions, type PoseErrorReport,
} from './database/mmdb/mmdb.js';
export { builtinSources } from './database/builtin-sources.js';
export { alignToFirstSkeleton } from './database/skeleton-match.js';
export { resampleLoop } from './database/resample.js';
export { openLoop } from './database/loops.js';

// search
export { Matcher, EmptyCandidateSetError, type SearchMethod, type Backend, type SearchOptions, type SearchResult } from './search/matcher.js';
export type { MatcherOptions, BatchSearchOptions, BatchResult } from './search/matcher.js';
export type { CompactFormat, SearchStats, CompactInfo, BuildStats } from './search/matcher.js';
export { OPTION_RANGES, SEARCH_METHODS } from './search/options.js';

// runtime
export {
  blendRootDelta, blendRootPositionsNaive, integrateBlendedDelta, intervalMeanWeight, loopRootDelta, loopRootDeltaBetween,
  rootDeltaLocal, blendRootDeltaLocal, applyRootDeltaLocal, blendRootMotionLocal, loopRootDeltaLocal,
  yawRootDeltaLocal, blendYawRootDeltaLocal, applyYawRootDeltaLocal, blendYawRootMotionLocal, loopYawRootDeltaLocal,
} from './runtime/root-motion/index.js';
export { createInertializationState, inertializeTransition, inertializeUpdate, inertializeApplyPose } from './runtime/inertialization/inertialize.js';
export { InertializationDecay, type InertializationDecayOptions } from './runtime/inertialization/decay.js';
export { MotionMatchingController, createInput, DEFAULT_CONTROLLER_OPTIONS, MAX_DESIRED_SPEED, type ControllerInput, type ControllerOptions, type ControllerOptionsInput } from './runtime/controller/controller.js';
export { MatcherSearchPort } from './runtime/matcher-port.js';
export { CrowdSearchBatch, type BatchSearcher } from './runtime/crowd/batch.js';
export { FramePrefetch } from './runtime/crowd/prefetch.js';
// Levels of detail and the search budget (docs/lod.md).
export { DEFAULT_LOD_LEVELS, DEFAULT_LOD_HYSTERESIS, selectLodLevel, initialLodLevel, lodDistance, levelOptions, validateLodLevels, type LodLevel } from './runtime/lod/levels.js';
export { CrowdLod, type CrowdLodOptions, type LodCounts } from './runtime/crowd/crowd-lod.js';
export { budgetShare, rankByUrgency, BUDGET_BLOCK } from './runtime/lod/search-budget.js';
export { inLodView, seeAll, viewCosHalfAngle, revealsPerStep, LOD_VIEW_MARGIN, type LodView } from './runtime/lod/view.js';
export { resolveControllerOptions, validateControllerOptions } from './runtime/controller/options.js';
export { QualityMeter, QualityStats, type QualityReport } from './runtime/quality/meter.js';
export { FootIK, DEFAULT_FOOT_IK_OPTIONS } from './runtime/foot-ik/foot-ik.js';

// ground: what the character stands on (docs/terrain.md)
export { groundFromFunctions, flatGround, sampleGround, validateGround, type Ground, type GroundFunctions } from './runtime/ground/ground.js';
export { DEFAULT_GROUND_OPTIONS, validateGroundOptions, type GroundOptions } from './runtime/ground/ground-options.js';
export {
  HeightField, HeightFieldError, HEIGHT_FIELD_LIMITS, checkHeightFieldLayout,
  type HeightFieldEdges, type HeightFieldLayout, type HeightFieldSpec,
} from './runtime/ground/height-field.js';

// overlays: bone masks and layers over the locomotion (docs/overlays.md)
export {
  upperBodyMask, armsMask, boneMaskFromSubtree, boneMaskFromWeights, boneMaskFromWeightArray, parseBoneMaskSpec, maskSparesLegs, upperBodyRoot,
  BoneMaskError, BONE_MASK_SPEC_HELP, type BoneMask, type SubtreeMaskOptions, type MaskRig,
} from './runtime/overlay/bone-mask.js';
export { OverlayLayer, DEFAULT_OVERLAY_OPTIONS, type OverlayOptions, type OverlayPlayOptions, type OverlaySource, type OverlayMode, type OverlayHost } from './runtime/overlay/overlay.js';
export { overlayClipFromDatabase, overlayClipFromRotations, overlayClipFromClip, type OverlayClip } from './runtime/overlay/clip.js';
export { overlayIndex, type OverlayIndex } from './runtime/overlay/search.js';
export { synthesizedWave, type SynthesizedWave } from './runtime/overlay/wave.js';

// simulation: the scripted drivers, overlays, terrains (runSimulation and its workers are Node-only)
export { ScriptedDriver, SCENARIOS, QUALITY_SCENARIOS, type ScenarioName } from './sim/scenarios.js';
export { OverlaySchedule, overlaySimulation, DEFAULT_OVERLAY_SIMULATION, type OverlaySimulation } from './sim/overlay/schedule.js';
export { OverlayStats, OverlayMeter, type OverlayReport } from './sim/overlay/metrics.js';
export { measureOverlayCost, type OverlayCost, type OverlayCostOptions } from './sim/overlay/cost.js';
export {
  hillsField, stepsField, terrainGround, maxSlope, describeTerrain, TERRAIN_KINDS, HILLS_MAX_SLOPE, STEP_MIN_RISE, STEP_MAX_RISE,
  type TerrainKind, type TerrainSpec,
} from './sim/terrain/terrain.js';
export {
  parseHeightFieldFile, heightFieldToBinary, heightFieldToJson, HEIGHT_FIELD_FORMAT, HEIGHT_FIELD_VERSION, HEIGHT_FIELD_MAGIC, MAX_HEIGHT_FIELD_FILE_BYTES,
} from './sim/terrain/file.js';

// data tools: settings, coverage (tuning and the quality runs drive runSimulation: Node-only)
export { parseSettings, checkSettings, applySchemaWeights, formatSettings, SettingsError, type EngineSettings, type ControllerSettings } from './sim/settings/options-file.js';
export { reweightDatabase, schemaWeights, SchemaWeightError } from './database/reweight.js';
export { computeCoverage, CoverageComputation, type CoverageReport, type CoverageOptions } from './tools/coverage/coverage.js';
export { coverageHtml, parseCoverageReport } from './tools/coverage/html.js';
export { playbackQuality, playbackStats } from './runtime/quality/playback-quality.js';
