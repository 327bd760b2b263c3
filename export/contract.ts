// The exporter contract: the row every trainer format writes, the writer each file in formats/ implements
// (registered in registry.ts), and the one error an export raises. tests/exporter-contract.test.ts runs
// every registered format against it.
import type { KindName } from '../kinds/contract.js';
import { EnvforgeError } from '../contract/errors.js';
import type { Tool } from '../contract/episodic.js';

/** The export scheme (selection, splits, seeds, dedup: see select.ts). A change gets a new tag. */
export const EXPORT_SCHEME = 'envforge-export-v1';

/** One exported instance, whatever the format. */
export interface ExportRow {
  env: string;
  version: number;
  seed: number;
  level: number;
  split: string;
  /** Position within its split's file, from 0. */
  index: number;
  /** The text the policy sees. */
  prompt: string;
  /** The identity as a JSON string `{"env","version","seed","level"}`: what the reward service resolves. */
  groundTruth: string;
  /** meta.skills of the environment (verl's `ability` is the first). */
  skills: readonly string[];
  /**
   * Episodic rows: reset's prompt alone (`prompt` adds the tool list), for formats that hand the tools over natively.
   */
  task?: string;
}

export interface FormatContext {
  /** The export's folder (final file names; writers get temporary paths from `files`). */
  dir: string;
  /** Split names in --split order; every split gets its files even when it ends up empty. */
  splits: readonly string[];
  /** The reward service base URL written into shims and READMEs (no trailing slash). */
  serviceUrl: string;
  /** The environments (name, version, code hash) the rows come from: shims check the service serves them. */
  envs: readonly ShimEnv[];
  files: OutputFileSet;
}

/** Where a format writes: files registered by name, renamed into place only when the whole export succeeds. */
export interface OutputFileSet {
  /** Registers an output file and returns the temporary path to write it at. */
  create(name: string): string;
  /** Writes a small text file at once. */
  text(name: string, content: string): void;
}

/** One environment of an export, as the Python shims check it against the reward service. */
export interface ShimEnv {
  name: string;
  version: number;
  hash: string;
  /** The kind's label as the fixed interfaces show it: 'single-turn', 'episodic' or 'code'. */
  kind: string;
  /** Episodic environments: their tools (OpenAI function format) and turn limit, for tool configs and classes. */
  episodic?: { tools: readonly Tool[]; maxTurns: number };
}

/** An open export in one format: chunks of rows arrive in file order (splits mixed), then end() once. */
export interface FormatWriter {
  write(rows: readonly ExportRow[]): Promise<void>;
  /** Finishes the data files and writes the format's extra files (reward shim, README). */
  end(): Promise<void>;
}

/** A trainer format: every file in formats/ exports one of these. */
export interface ExportFormat {
  /** The --format value (registry.ts keys the formats by it). */
  name: string;
  /** One line for --help and the README. */
  description: string;
  /**
   * The environment kinds it exports, by canonical name (kinds/contract.ts KIND_NAMES); others are left out and listed
   * as unsupported.
   */
  kinds: readonly KindName[];
  /** Why it cannot carry an environment of those kinds (a tool it cannot express), or undefined when it can. */
  refuses?(env: ShimEnv): string | undefined;
  begin(context: FormatContext): Promise<FormatWriter>;
}

export interface WrittenFile {
  name: string;
  bytes: number;
  sha256: string;
}

/** An export that cannot finish: an environment that does not load or keeps failing to generate. */
export class ExportError extends EnvforgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_EXPORT', message, options);
  }
}
