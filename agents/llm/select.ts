// Provider selection: flags, then environment variables, then the config file decide which LLM the
// batch talks to ('offline' and 'none' mean the offline author, which the CLI builds itself); the result
// is a plain description to announce plus a factory for LLM clients.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../contract/errors.js';
import { createAnthropicClient } from './anthropic.js';
import { DiskCache } from './cache.js';
import type { LlmClient } from './contract.js';
import type { ClientOptions } from './core.js';
import { mergePrices, type PriceTable } from './cost.js';
import { createOpenAiClient } from './openai.js';

export type ProviderName = 'openai' | 'anthropic' | 'offline' | 'none';
export type SelectionSource = 'flag' | 'env' | 'config' | 'none';

export interface SelectFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
  /** --config PATH; otherwise envforge.config.json in cwd when present. */
  config?: string;
  noCache?: boolean;
}

export interface SelectInput {
  flags?: SelectFlags;
  /** Defaults to process.env; tests pass their own. */
  env?: Record<string, string | undefined>;
  cwd?: string;
}

export interface ProviderDescription {
  provider: ProviderName;
  model?: string;
  baseUrl?: string;
  /** Where the provider choice came from. */
  source: SelectionSource;
}

const providerName = z.enum(['openai', 'anthropic', 'offline']);
const price = z.object({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  cachedInputPerMTok: z.number().nonnegative().optional(),
  cacheWritePerMTok: z.number().nonnegative().optional(),
});

/** The LLM part of envforge.config.json; other top-level keys belong to other components and pass through. */
const LlmConfigSchema = z.looseObject({
  provider: providerName.optional(),
  model: z.string().min(1).optional(),
  baseUrl: z.url().optional(),
  prices: z.record(z.string(), price).optional(),
  cache: z
    .union([z.boolean(), z.object({ enabled: z.boolean().optional(), dir: z.string().min(1).optional() })])
    .optional(),
  maxTokens: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxAttempts: z.number().int().positive().optional(),
  /** The agents' prompt profile: auto (by the model's size), standard, or compact for 7–32B open models. */
  promptProfile: z.enum(['auto', 'standard', 'compact']).optional(),
});
export type LlmConfig = z.infer<typeof LlmConfigSchema>;

export const DEFAULT_MODELS = { openai: 'gpt-4.1-mini', anthropic: 'claude-sonnet-4-5' } as const;
export const DEFAULT_CACHE_DIR = '.envforge/llm-cache';

export const NO_PROVIDER_MESSAGE = [
  'No LLM is configured. Configure one of:',
  '  --provider openai --model MODEL          (with OPENAI_API_KEY set)',
  '  --provider anthropic --model MODEL       (with ANTHROPIC_API_KEY set)',
  '  --base-url http://127.0.0.1:8000/v1 --model MODEL   (any OpenAI-compatible server: vLLM, SGLang, ' +
    'Ollama, llama.cpp, LM Studio)',
  'or the env vars ENVFORGE_PROVIDER / ENVFORGE_MODEL / ENVFORGE_BASE_URL, or envforge.config.json { ' +
    '"provider", "model", "baseUrl" }.',
].join('\n');

export interface CreateOverrides extends Omit<ClientOptions, 'prices'> {
  /** Another model on the same provider, e.g. the solver model. */
  model?: string;
}

export interface Selection {
  description: ProviderDescription;
  config: LlmConfig;
  configPath: string | undefined;
  cache: { enabled: boolean; dir: string };
  prices: PriceTable;
  /** Builds an LLM client; UsageError (CLI exit 2) when no LLM is configured or the provider is 'offline'. */
  create(overrides?: CreateOverrides): LlmClient;
}

interface Layer {
  source: SelectionSource;
  provider?: ProviderName | undefined;
  model?: string | undefined;
  baseUrl?: string | undefined;
}

/**
 * Explicit settings win by source (flag > env > config); a layer's model and base URL apply only when
 * that layer names no provider or the chosen one. Only when no layer names a provider or base URL is the
 * provider inferred from an API key in the environment (OpenAI first), so a stray key never overrides a config.
 */
export function selectProvider(input: SelectInput = {}): Selection {
  const flags = input.flags ?? {};
  const env = input.env ?? process.env;
  const cwd = input.cwd ?? process.cwd();
  const { config, path: configPath } = loadConfig(flags.config, cwd);
  const layers: Layer[] = [
    {
      source: 'flag',
      provider: parseProvider(flags.provider, '--provider'),
      model: flags.model,
      baseUrl: flags.baseUrl,
    },
    {
      source: 'env',
      provider: parseProvider(env['ENVFORGE_PROVIDER'], 'ENVFORGE_PROVIDER'),
      model: env['ENVFORGE_MODEL'],
      baseUrl: env['ENVFORGE_BASE_URL'],
    },
    { source: 'config', provider: config.provider, model: config.model, baseUrl: config.baseUrl },
  ].map(
    (layer) =>
      Object.fromEntries(Object.entries(layer).filter(([, v]) => v !== undefined && v !== '')) as unknown as Layer,
  );

  const chosen = chooseProvider(layers, env);
  const applies = (layer: Layer) => layer.provider === undefined || layer.provider === chosen.provider;
  const baseUrl = layers.find((l) => l.baseUrl && applies(l))?.baseUrl;
  const defaultModel =
    chosen.provider === 'anthropic' || (chosen.provider === 'openai' && !baseUrl)
      ? DEFAULT_MODELS[chosen.provider]
      : undefined;
  const model = layers.find((l) => l.model && applies(l))?.model ?? defaultModel;
  const live = chosen.provider === 'openai' || chosen.provider === 'anthropic';
  const description: ProviderDescription = {
    provider: chosen.provider,
    source: chosen.source,
    ...(live && model ? { model } : {}),
    ...(live && baseUrl ? { baseUrl } : {}),
  };

  const cacheConfig = typeof config.cache === 'object' ? config.cache : { enabled: config.cache };
  const cache = {
    enabled: !flags.noCache && cacheConfig.enabled !== false,
    dir: resolve(cwd, cacheConfig.dir ?? DEFAULT_CACHE_DIR),
  };
  const prices = mergePrices(config.prices);

  const create = (overrides: CreateOverrides = {}): LlmClient => {
    const { provider } = description;
    if (provider === 'none') throw new UsageError(NO_PROVIDER_MESSAGE);
    // The offline author writes environments without a model; callers (envforge run) use it directly.
    if (provider === 'offline')
      throw new UsageError(
        `the offline author is not an LLM client: it has no model to call (a solver or reviewer needs ` +
          `--provider openai|anthropic --model M, or --base-url URL)`,
      );
    const useModel = overrides.model ?? description.model;
    if (!useModel) throw new UsageError(`set --model (or ENVFORGE_MODEL) for the server at ${baseUrl}`);
    const options = {
      ...(config.maxTokens ? { maxTokens: config.maxTokens } : {}),
      cache: cache.enabled ? new DiskCache(cache.dir) : (false as const),
      ...overrides,
      retry: {
        ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
        ...(config.maxAttempts ? { maxAttempts: config.maxAttempts } : {}),
        ...overrides.retry,
      },
      prices,
      model: useModel,
      ...(baseUrl ? { baseUrl } : {}),
    };
    if (provider === 'anthropic') {
      const apiKey = env['ANTHROPIC_API_KEY'];
      if (!apiKey) throw new UsageError('the anthropic provider needs ANTHROPIC_API_KEY');
      return createAnthropicClient({ ...options, apiKey });
    }
    const apiKey = env['OPENAI_API_KEY'] ?? (baseUrl ? 'not-needed' : undefined);
    if (!apiKey)
      throw new UsageError(
        'the openai provider needs OPENAI_API_KEY (or --base-url for a local OpenAI-compatible server)',
      );
    return createOpenAiClient({ ...options, apiKey });
  };

  return { description, config, configPath, cache, prices, create };
}

/** The one line a run prints about its LLM. */
export function describeProvider(d: ProviderDescription): string {
  if (d.provider === 'none') return 'LLM: none configured';
  if (d.provider === 'offline') return `LLM: offline author (from ${d.source})`;
  return `LLM: ${d.provider} ${d.model ?? '(no model)'}${d.baseUrl ? ` at ${d.baseUrl}` : ''} (from ${d.source})`;
}

function chooseProvider(
  layers: Layer[],
  env: Record<string, string | undefined>,
): { provider: ProviderName; source: SelectionSource } {
  for (const layer of layers) {
    if (layer.provider) return { provider: layer.provider, source: layer.source };
    // a bare base URL means an OpenAI-compatible server
    if (layer.baseUrl) return { provider: 'openai', source: layer.source };
  }
  if (env['OPENAI_API_KEY']) return { provider: 'openai', source: 'env' };
  if (env['ANTHROPIC_API_KEY']) return { provider: 'anthropic', source: 'env' };
  return { provider: 'none', source: 'none' };
}

function parseProvider(value: string | undefined, where: string): ProviderName | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = providerName.safeParse(value);
  if (!parsed.success)
    throw new UsageError(`${where}: unknown provider "${value}" (expected openai, anthropic or offline)`);
  return parsed.data;
}

function loadConfig(flagPath: string | undefined, cwd: string): { config: LlmConfig; path: string | undefined } {
  const path = flagPath ? resolve(cwd, flagPath) : resolve(cwd, 'envforge.config.json');
  if (!existsSync(path)) {
    if (flagPath) throw new UsageError(`--config: no such file: ${path}`);
    return { config: {}, path: undefined };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`${path}: not valid JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = LlmConfigSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`${path}: invalid LLM settings:\n${z.prettifyError(parsed.error)}`);
  return { config: parsed.data, path };
}
