// The LLM layer's public surface: the contract, the clients, selection, cost and cache; the core,
// the retry internals and the structured-output helpers stay private.
export type {
  FinishReason, LlmClient, LlmMessage, LlmPurpose, LlmRequest, LlmResponse, LlmResponseMeta, LlmStructuredRequest,
  LlmStructuredResponse, LlmUsage, Transport, WireRequest, WireResponse,
} from './contract.js';
export { LLM_CODES, LlmError, isLlmError, type LlmErrorCode } from './errors.js';
export { createLlmClient, CLIENT_DEFAULTS, type ClientOptions } from './core.js';
export { createOpenAiClient, type OpenAiOptions } from './openai.js';
export { createAnthropicClient, type AnthropicOptions } from './anthropic.js';
export { FakeLlm, reply, type FakeReply, type FakeScript } from './fake.js';
export { RETRY_DEFAULTS, type RetryEvent, type RetryOptions } from './retry.js';
export { CostLedger, DEFAULT_PRICES, costOf, priceFor, type Budget, type LedgerSnapshot, type ModelPrice, type PriceTable, type Totals } from './cost.js';
export { DiskCache, MemoryCache, type ResponseCache } from './cache.js';
export {
  DEFAULT_CACHE_DIR, DEFAULT_MODELS, NO_PROVIDER_MESSAGE, describeProvider, selectProvider,
  type ProviderDescription, type Selection, type SelectFlags, type SelectInput,
} from './select.js';
