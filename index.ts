// envforge's public API for programmatic use: the contract, the sandbox, the validator. Everything not
// exported here is internal and may change.
export { CODES, PROBLEM_CODES, isCode, isProblemCode, type Code, type ProblemCode } from './contract/codes.js';
export { DEFAULT_SERVE_OPTIONS, type ServeOptions } from './serve/options.js';
export { hashSource } from './contract/hash.js';
export { EnvforgeError, SandboxError, UsageError } from './contract/errors.js';
export { CONTRACT_LIMITS, InstanceSchema, MetaSchema, ReferenceSchema, VerifyResultSchema, toVerdict, type Instance, type Meta, type Verdict, type VerifyResult } from './contract/schema.js';
export { SandboxPool, DEFAULT_POOL_OPTIONS, type RunRequest, type RunResult, type SandboxPoolOptions } from './sandbox/pool.js';
export { DEFAULT_LIMITS, ISOLATE_CALL_BUDGET, GUEST_CODES, type Call, type CallResult, type LoadInfo, type SandboxLimits } from './sandbox/protocol.js';
export { runEpisodes, scoreOf, type Episode, type EpisodeFailure, type EpisodeRequest, type EpisodeResult } from './sandbox/episodes.js';
export { RNG_SCHEME, deriveRngState } from './sandbox/rng.js';
export { validateCandidate, VALIDATOR_VERSION, type ValidateOptions } from './validators/validate.js';
export { DEFAULT_VALIDATOR_OPTIONS, type ValidatorOptions } from './validators/options.js';
export { STAGES, type LevelStats, type Problem, type StageName, type StageReport, type ValidationReport } from './validators/report.js';
export type { Reviewer } from './validators/context.js';
export { NoveltyIndex, type Fingerprint } from './validators/novelty.js';
export { buildNoveltyIndex, fingerprintSource, noveltyIndexOf, seedNoveltyIndex } from './library/novelty-index.js';
export { listSeeds, type SeedFile } from './library/seeds.js';
export { LibraryError, type AdmitInput, type AdmitResult, type EnvRecord, type Library, type LibraryStats, type Lineage, type ListFilter, type RejectionFilter, type RejectionRecord, type IncidentInput, type IncidentRecord } from './library/contract.js';
export { QUARANTINE_POLICY, quarantineReason } from './library/quarantine.js';
export { SqliteLibrary, DEFAULT_SQLITE_OPTIONS, type SqliteLibraryOptions } from './library/sqlite/store.js';
export { openLibrary, resolveLibraryDir } from './library/open.js';
export { revalidate, seedLibrary } from './library/maintenance.js';
export { identityString, type Identity } from './contract/identity.js';
export { runExport, type ExportPlan, type ExportSummary } from './export/run.js';
export { FORMATS, FORMAT_NAMES, type FormatName } from './export/registry.js';
export type { ExportFormat, ExportRow } from './export/contract.js';
export { startServer } from './serve/server.js';
export * from './agents/llm/index.js';
