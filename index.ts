// envforge's public API for programmatic use, layer by layer (docs/architecture.md). Everything not
// exported here is internal and may change; test doubles (the fake LLM) are not part of it.

// The contract: codes, errors, the environment contract's schemas, identities and code hashes.
export { CODES, PROBLEM_CODES, isCode, isProblemCode, type Code, type ProblemCode } from './contract/codes.js';
export { EnvforgeError, SandboxError, UsageError } from './contract/errors.js';
export {
  CONTRACT_LIMITS,
  InstanceSchema,
  MetaSchema,
  ReferenceSchema,
  VerifyResultSchema,
  toVerdict,
  type Instance,
  type Meta,
  type Verdict,
  type VerifyResult,
} from './contract/schema.js';
export { identityString, type Identity } from './contract/identity.js';
export { hashSource } from './contract/hash.js';

// The sandbox: worker pool, limits, episodes, the seeded rng and the answer rule.
export {
  SandboxPool,
  DEFAULT_POOL_OPTIONS,
  type RunRequest,
  type RunResult,
  type SandboxPoolOptions,
} from './sandbox/pool.js';
export {
  DEFAULT_LIMITS,
  GUEST_CODES,
  type Call,
  type CallResult,
  type LoadInfo,
  type SandboxLimits,
} from './sandbox/protocol.js';
export {
  runEpisodes,
  scoreOf,
  type Episode,
  type EpisodeFailure,
  type EpisodeRequest,
  type EpisodeResult,
} from './sandbox/episodes.js';
export { RNG_SCHEME, deriveRngState } from './sandbox/rng.js';
export { answerContent, answerTag } from './sandbox/answer.js';

// The validator.
export { validateCandidate, VALIDATOR_VERSION, type ValidateOptions } from './validators/validate.js';
export { DEFAULT_VALIDATOR_OPTIONS, type ValidatorOptions } from './validators/options.js';
export {
  STAGES,
  type LevelStats,
  type Problem,
  type StageName,
  type StageReport,
  type ValidationReport,
} from './validators/report.js';
export type { Reviewer } from './validators/context.js';
export { NoveltyIndex, type NoveltyMatch } from './validators/novelty/lsh.js';
export type { Fingerprint } from './validators/novelty/fingerprint.js';

// The library: its contract, the stores, opening, seeding, revalidation, selection and quarantine.
export {
  LibraryError,
  type AdmitInput,
  type AdmitResult,
  type EnvRecord,
  type IncidentInput,
  type IncidentRecord,
  type Library,
  type LibraryStats,
  type Lineage,
  type ListFilter,
  type RejectionFilter,
  type RejectionRecord,
} from './library/contract.js';
export { STORES, type LibraryOpenOptions, type LibraryStore } from './library/stores.js';
export { SqliteLibrary, DEFAULT_SQLITE_OPTIONS, type SqliteLibraryOptions } from './library/sqlite/store.js';
export { libraryExists, openLibrary, resolveLibraryDir } from './library/open.js';
export { revalidate, seedLibrary } from './library/maintenance.js';
export { buildNoveltyIndex, fingerprintSource, noveltyIndexOf, seedNoveltyIndex } from './library/novelty-index.js';
export {
  selectEnvironments,
  SelectionError,
  type Selection as EnvSelection,
  type SelectedEnv,
} from './library/select.js';
export { QUARANTINE_POLICY, quarantineReason } from './library/quarantine.js';
export { listSeeds, type SeedFile } from './library/seeds.js';

// The authors: the Author contract, the registered authors, and the LLM clients.
export { AUTHORS, type AuthorName } from './agents/authors.js';
export type { Author, AuthorIdentity, ProposedSpecs, WrittenModule } from './agents/author.js';
export type { EnvSpec, EpisodicSpec } from './agents/spec.js';
export {
  PROFILE_CHOICES,
  PROMPT_PROFILES,
  resolveProfile,
  type ProfileChoice,
  type PromptProfile,
} from './agents/prompt-files.js';
export type {
  FinishReason,
  LlmClient,
  LlmMessage,
  LlmPurpose,
  LlmRequest,
  LlmResponse,
  LlmResponseMeta,
  LlmStructuredRequest,
  LlmStructuredResponse,
  LlmUsage,
  Transport,
  WireRequest,
  WireResponse,
} from './agents/llm/contract.js';
export { LLM_CODES, LlmError, isLlmError, type LlmErrorCode } from './agents/llm/errors.js';
export { createLlmClient, CLIENT_DEFAULTS, type ClientOptions } from './agents/llm/core.js';
export { createOpenAiClient, type OpenAiOptions } from './agents/llm/openai.js';
export { createAnthropicClient, type AnthropicOptions } from './agents/llm/anthropic.js';
export { RETRY_DEFAULTS, type RetryEvent, type RetryOptions } from './agents/llm/retry.js';
export {
  CostLedger,
  DEFAULT_PRICES,
  costOf,
  priceFor,
  type Budget,
  type LedgerSnapshot,
  type ModelPrice,
  type PriceTable,
  type Totals,
} from './agents/llm/cost.js';
export { DiskCache, MemoryCache, type ResponseCache } from './agents/llm/cache.js';
export {
  DEFAULT_CACHE_DIR,
  DEFAULT_MODELS,
  NO_PROVIDER_MESSAGE,
  describeProvider,
  selectProvider,
  type ProviderDescription,
  type Selection,
  type SelectFlags,
  type SelectInput,
} from './agents/llm/select.js';

// The pipeline: the nightly batch and its report.
export {
  runBatch,
  DEFAULT_BATCH_OPTIONS,
  type BatchOptions,
  type BatchDeps,
  type BatchEvent,
} from './pipeline/batch.js';
export type { BatchReport } from './pipeline/report.js';

// Exports and the reward service.
export { runExport, type ExportPlan, type ExportSummary } from './export/run.js';
export { FORMATS, FORMAT_NAMES, type FormatName } from './export/registry.js';
export type { ExportFormat, ExportRow } from './export/contract.js';
export { startServer } from './serve/server.js';
export { DEFAULT_SERVE_OPTIONS, ServeError, type RunningServer, type ServeOptions } from './serve/options.js';
export {
  startDashboard,
  DEFAULT_DASHBOARD_OPTIONS,
  type DashboardOptions,
  type RunningDashboard,
} from './dashboard/server.js';
export { runNight, type NightDeps } from './nightly/night.js';
export { loadNightlyConfig, type NightlyConfig } from './nightly/config.js';
export type { NightReport } from './nightly/report.js';
