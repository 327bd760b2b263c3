// Every stable code envforge reports, with its one-line meaning: the single place the sandbox, the
// validator, the LLM client, the library, the CLI, the reward service, the repair prompt and the
// dashboard read them from. tests/codes.test.ts checks that every code string in the source is here.

/** What a candidate or an admitted environment did wrong: a validation problem or a production failure. */
export const PROBLEM_CODES = {
  // Sandbox: what running untrusted code can go wrong with.
  E_SYNTAX: 'the module does not compile as JavaScript',
  E_IMPORT: 'the module imports something; environments must be self-contained',
  E_TAMPER:
    'the module interfered with the envforge runtime (no longer produced: the runtime API is out of reach of ' +
    'guest code; kept for stored reports)',
  E_ASYNC: 'the module or one of its functions is asynchronous (top-level await or a returned Promise)',
  E_MISSING_EXPORT: 'a required export (meta, generate, solve, verify) is missing or not a function',
  E_THROWN: 'the environment code threw an error',
  E_TIMEOUT: 'the environment code ran past its wall-clock budget',
  E_MEMORY: 'the environment code exceeded its memory limit',
  E_CRASHED: 'the sandbox worker process died while running the environment code',
  E_NOT_JSON: 'a returned value is not plain JSON data (function, undefined, NaN, BigInt, cycle, class instance…)',
  E_TOO_LARGE: 'a returned value or the source is larger or deeper than the limits allow',
  E_MALFORMED_TEXT:
    'a prompt, observation, reference, feedback or meta text is not well-formed Unicode (a lone surrogate) or not in ' +
    "normal form C, which breaks UTF-8 consumers downstream or is changed by the trainer tokenizer's normalizer",
  E_CONTROL_CHARS:
    "a module's text (meta.title, a description, a tool's or parameter's description, an enum value, a " +
    'prompt, an observation) holds a control character: C0 controls other than tab and newline (none at all ' +
    'in a title), DEL, C1 controls, bidi embeddings, overrides and isolates, U+FFFE or ' +
    'U+FFFF (contract/text.ts)',
  E_TEXT_RESIDUE:
    'a prompt or observation carries template or source residue: code from the module (`" + x.y + "`, `=>`), ' +
    'an unfilled placeholder (`${x}`, `{{x}}`, `{name}`) or a value JavaScript prints for a bug ' +
    '(undefined, NaN, [object Object])',
  E_TOO_SLOW:
    "the candidate's episodes are so slow that validating it would exceed the per-candidate validation budget",
  E_PROTOCOL: 'the sandbox returned malformed output (a tampered trampoline or an internal fault)',
  E_ESCAPE_ATTEMPT:
    'the module reached for a capability outside the contract (code from a string: eval, a Function ' +
    "constructor, a Compartment; dynamic import() or import.meta; the stack, SES's set-up, a removed global, " +
    "or an rng after its call returned), recorded by the sandbox's tripwires even when the module caught the " +
    'refusal; production quarantines it at once',
  // Contract: what the environment's own values must look like.
  E_META: 'meta is missing or does not match the contract',
  E_INSTANCE: 'generate returned an instance that does not match the contract',
  E_REFERENCE: 'solve returned something other than a non-empty string',
  E_SCORE: 'verify returned something other than a number in [0, 1] or { score, feedback }',
  E_TOOL_SCHEMA:
    "an episodic module's tool declares parameters outside the supported JSON Schema subset " +
    '(docs/environment-contract.md)',
  E_STATE_TOO_LARGE: 'an episodic state serialises to more than 256 KB of canonical JSON',
  E_BAD_ACTION:
    "the reference policy (act) chose an action the host's action check rejects (undeclared tool or " +
    'arguments outside its schema)',
  // Code kind (contract v3): what running a policy's program can go wrong with.
  E_LANGUAGE:
    'a code answer is in a language this host does not run (today JavaScript and TypeScript): a clear ' +
    'error, never a score of 0',
  E_NO_ENTRY: 'a code answer defines no function with the name the prompt asks for',
  E_WRONG: "a code answer's output does not match a test's expected output under the environment's comparator",
  // Validator: determinism.
  E_NONDETERMINISTIC: 'the same (seed, level) gave different instances, references or scores',
  E_STATE_LEAK: 'results depend on earlier calls: state leaks through module globals',
  // Validator: solvability.
  E_UNSOLVED:
    'verify does not give the reference response (solve) a score of 1; episodic: following act() does not ' +
    'reach done with score 1 within maxTurns',
  E_UNTYPEABLE_REFERENCE:
    'episodic: the reference replayed with its numbers written as a model types them (at the precision the ' +
    'prompt or the tool states, else at most 4 decimals; values it was shown as shown) and its strings ' +
    "trimmed loses its score in many episodes: only the module's own unrounded values are paid",
  // Validator: hack resistance (zero-tolerance families first, then families judged against chance).
  E_ACCEPTS_EMPTY: 'verify rewards an empty or whitespace-only response',
  E_ACCEPTS_ECHO: 'verify rewards the prompt echoed back (bare or in any markup)',
  E_ACCEPTS_FORMAT_ONLY:
    'verify rewards an answer tag or other markup with nothing (or only format) inside, even a little',
  E_ACCEPTS_STUFFING:
    'verify rewards keywords with no answer, or pays a wrong answer more when keywords or other text surround it',
  E_ACCEPTS_ENUMERATION:
    'verify rewards a response that lists several candidate answers (2 to 5 guesses or many, in any ' +
    'markup, with any separator)',
  E_ACCEPTS_HUGE: 'verify rewards junk of some length (the bands run from 100 characters to a megabyte)',
  E_ACCEPTS_MALFORMED_LIST:
    'verify fully rewards a list that cannot be an answer (an item repeated where the answer is an ' +
    'arrangement of distinct items)',
  E_ACCEPTS_NON_ANSWER:
    'verify rewards a response that is no answer (an abstention, a non-finite number such as 0/0, text ' +
    "malformed in the answer's own notation), or every wrong answer earns a floor of credit",
  E_ACCEPTS_OTHER_ANSWER: "verify rewards another instance's reference more often than chance explains",
  E_ACCEPTS_PERTURBED:
    'verify rewards perturbed references (a number ±1 or negated, letter case changed where case carries ' +
    'meaning, one list item swapped) more often than chance explains',
  E_ACCEPTS_NO_ACTION: 'an episodic environment pays for an episode in which the agent took no action',
  E_ACCEPTS_INVALID_ACTIONS: 'an episodic environment pays for an episode of rejected (invalid) actions only',
  E_ACCEPTS_INCOMPLETE:
    "an episodic environment pays for the reference's actions minus the last one, or for a prefix of the " +
    "reference's plan that leaves decisions out followed by the finishing call (after a " +
    'model-like opening too)',
  E_ACCEPTS_OTHER_EPISODE:
    "an episodic environment pays for another episode's reference actions more often than chance explains",
  E_ACCEPTS_REPEATED_ACTION:
    'an episodic environment pays for one action repeated (or the finishing call alone) more often than ' +
    'chance explains, or as much as the reference for one reference decision repeated ' +
    'then the finishing call',
  E_ACCEPTS_BLANKET:
    'an episodic environment pays as much as the reference for one decision (a constant value, or every ' +
    'value the argument takes joined in one string) applied to every entity the episode names, ' +
    'then the finishing call',
  E_ACCEPTS_STALLING:
    "an episodic environment pays more for a log padded with neutral calls (listings, the reference's reads) " +
    'before its finishing call, up to the turn limit, than for the log itself (the padded empty plan, a ' +
    'stall, more than the finishing call alone): time, not decisions, does the work',
  E_ACCEPTS_SHORTCUT:
    'an episodic environment pays for the call surface the reference never uses (a tool it never needs, or ' +
    'an optional argument it never sends), called once or on every entity the episode names with the values ' +
    'its schema, description or the prompt suggest, then the finishing call',
  E_ACCEPTS_TRANSFER:
    "an episodic environment pays as much as the reference when one entity's amount is moved onto another's " +
    "(the total kept), or two entities' decisions are exchanged (the tally kept): it checks an aggregate, not each " +
    'entity',
  E_ACCEPTS_RETRIES:
    'an episodic environment pays as much as the reference for retrying each decision over every value until ' +
    'the reply changes (the reply is an oracle and retries cost nothing)',
  E_RULE_IGNORED:
    'episodic: a step the prompt makes mandatory (a look-up, an approval, an order of steps) that the ' +
    "environment records in its state can be skipped or taken out of order and still earn the reference's " +
    'score: the reward pays a policy violation',
  E_ARGUMENT_UNCHECKED:
    "episodic: a variant of the reference's own argument (another letter case, padded, a Unicode look-alike, " +
    'a placeholder for free text, an array item repeated or dropped) is stored differently by step yet earns ' +
    "the reference's score (or more than a wrong decision): the score does not read what step wrote",
  E_WRITABLE_TRUTH:
    "an episodic environment lets the agent write the ground truth: a free-text argument naming the state's " +
    "own truth field, with a value the agent then decides, pays the reference's score",
  E_ACCEPTS_RANDOM_POLICY:
    'an episodic environment pays a seeded random policy of schema-valid calls more often than chance explains',
  E_ACCEPTS_COARSE:
    'verify pays the answer written coarsely (fewer decimals, one or two significant figures, scientific, a ' +
    "small fraction, or a short constant) where the same value written at the reference's precision, or a " +
    'value as close, is not paid, or pays a wrong value written in another notation (another digit script, a ' +
    'scale or unit suffix, e-notation, thousands separators) where the same value in plain digits is not ' +
    "paid: acceptance read off the response's notation itself",
  E_ACCEPTS_RESTATED:
    "verify pays the question restated in its answer language (the prompt's expression transcribed, or its " +
    'numbers joined by its operator words in order): an answer that restates the question has solved nothing',
  E_REJECTS_EQUIVALENT:
    "verify rejects a correct answer: the reference in the prompt's own notation (its minus sign, digit " +
    "grouping, quoting, list separator) or an ordinary equivalent form, or another instance's reference " +
    'under the same prompt, scores far below the reference',
  E_ACCEPTS_CONSTANT:
    'one fixed answer (the most common reference of the other half of the instances) wins too often at some ' +
    'level, or over all levels',
  E_ACCEPTS_GUESSING:
    'a strategy that does not solve the task (every option, the printed list copied, a multiple-choice rule ' +
    'learned from the instances) beats nominal chance at some level',
  E_ANSWER_LEAK:
    'the answer can be read off the prompt (in some numeral system or simple encoding, at a fixed place, ' +
    'after number formats are normalised, or by a simple relation of its numbers such as a sum or a ' +
    'midpoint); episodic: or off an observation (of a wrong value, of a tool the reference never calls), or ' +
    'found by bisection on replies that say too high / too low',
  E_FEEDBACK_LEAK:
    "verify's feedback on a wrong answer names the right one (a trainer may show feedback to the policy)",
  E_WEAK_TESTS:
    'code: the hidden tests do not tell the reference program from its mutants (operators, constants, ' +
    'boundaries changed), so wrong programs pass',
  E_ACCEPTS_EXAMPLES:
    'code: a program that knows only the visible examples (a lookup table of them) passes hidden tests',
  E_ACCEPTS_BROKEN_PROGRAM:
    'code: a program that throws, loops, exits early, returns nothing, or probes its sandbox for the tests is paid',
  // Validator: diversity.
  E_SEED_IGNORED: 'different seeds give the same prompt too often',
  E_DEGENERATE_ANSWERS: 'the answer distribution is degenerate: one answer covers too many instances',
  // Validator: difficulty.
  E_LEVEL_IGNORED: 'levels do not change the task',
  E_FLAT_DIFFICULTY: 'no size, number-magnitude or work signal of the top level is measurably bigger than level 1',
  E_NON_MONOTONIC:
    'the signals that grow from level 1 to the top do not rise with the level (rank correlation), or ' +
    'guessing gets easier at higher levels',
  // Validator: novelty.
  E_DUPLICATE_CODE: 'the code is a near-duplicate of an admitted environment',
  E_DUPLICATE_BEHAVIOUR: 'the generated tasks are near-duplicates of an admitted environment',
  // Batch: what the spec asked for.
  E_WRONG_KIND:
    'the module is not of the kind its spec asked for (an episodic spec answered with a single-turn ' +
    'module, or the reverse)',
  // Batch: solver calibration.
  E_NOT_LEARNABLE:
    "no level's solver pass rate lies in the learnable band (everything too easy or too hard for the solver)",
  // Production (serve, export): the runtime defence.
  E_QUARANTINED:
    'the environment misbehaved in production (a timeout, crash or invalid value) and is quarantined until ' +
    '`envforge library revalidate` re-examines it',
  E_REQUEST_TIMEOUT: "the item was not scored within the reward service's per-request time budget",
  // Validator: LLM review.
  E_REVIEW:
    'the LLM reviewer failed a checklist item (prompt ambiguous, format unstated, verifier inconsistent, ' +
    'valid answers rejected, or a leak; for an episodic candidate: goal unstated, a tool undescribed, the ' +
    'goal reachable without the tools, a score that trusts a claim)',
} as const satisfies Record<string, string>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

/** Codes a loaded machine can cause in an honest module: wall-clock deadlines and the per-candidate time budget. */
export const LOAD_SENSITIVE: ReadonlySet<ProblemCode> = new Set(['E_TIMEOUT', 'E_TOO_SLOW']);

/** Failures of a remote LLM service (the agents' client): data for the batch, never a candidate's problem. */
export const LLM_CODES = {
  E_LLM_RATE_LIMIT: 'the provider answered 429 (rate limit or overload) on every attempt',
  E_LLM_SERVER: 'the provider answered with a 5xx server error on every attempt',
  E_LLM_TIMEOUT: 'no response within the per-call timeout on every attempt',
  E_LLM_CONNECTION: 'the connection failed or was reset on every attempt',
  E_LLM_BAD_OUTPUT: 'the model output did not parse or match the schema, even after re-asking',
  E_LLM_AUTH: 'the provider rejected the credentials (401/403); not retried',
  E_LLM_BAD_REQUEST: 'the provider rejected the request (400/404/422: unknown model, context too long…); not retried',
  E_LLM_BUDGET: 'the call was not issued because it could exceed the token or dollar budget',
  E_LLM_CANCELLED: "the caller's AbortSignal cancelled the call",
  E_LLM_CONFIG: 'the LLM client is misconfigured (missing key, model or base URL)',
} as const satisfies Record<string, string>;

/** Failures at envforge's own boundaries: the caller, the sandbox host, the library, the prompt files, an export. */
export const HOST_CODES = {
  E_USAGE:
    'the caller asked for something impossible: a bad flag or option, a missing file, an unknown ' +
    'environment (CLI exit 2)',
  E_SANDBOX: "the sandbox itself failed (a worker could not start, or the pool was closed): not the candidate's fault",
  E_LIBRARY: 'the library cannot be opened or used as asked (missing, damaged, read-only, written by a newer envforge)',
  E_NO_WORKER: 'envforge run --workers remote: no envforge worker took a job within --wait-timeout',
  E_PROMPT: 'a prompt file is missing or malformed, or a model reply holds no usable module',
  E_EXPORT: 'an export cannot finish: an environment does not load, or keeps failing to generate',
} as const satisfies Record<string, string>;

/** What a request named that the library does not hold: the reward service's per-item errors and selections. */
export const SELECTION_CODES = {
  E_UNKNOWN_ENV: 'no such environment or version in the library (or it has no active version)',
  E_LEVEL_RANGE: "a level past the environment's levels",
  E_UNSUPPORTED_KIND:
    'the environment is of a kind this command or service does not handle yet (episodic environments in ' +
    'exports, or a single-turn one asked for as an episode)',
  E_RESPONSE_TOO_LONG:
    'a response longer than any the validator probed: its score was never checked, so it is ' +
    'refused (item error, score 0)',
  E_NO_MATCH: 'the selection (environments, skills, levels) matches no active environment',
} as const satisfies Record<string, string>;

/** The reward service's answers to requests it refuses or cannot serve (with an HTTP status). */
export const SERVICE_CODES = {
  E_BAD_REQUEST: 'the body is not valid JSON or breaks the request schema (400, naming the field)',
  E_BODY_TOO_LARGE: "the body is over the service's size limit (413)",
  E_BODY_TOO_COMPLEX: 'the body parses into more JSON values than the endpoint takes (413)',
  E_BODY_TIMEOUT: 'the request body did not arrive within the deadline after its headers (408, connection closed)',
  E_TOO_MANY_ITEMS: 'more items than one request may carry (413)',
  E_MEDIA_TYPE: 'the body was not sent as application/json (415)',
  E_NOT_FOUND: 'no such endpoint (404)',
  E_OVERLOADED: 'the service is at capacity; retry later (503 with retry-after)',
  E_CLOSING: 'the service is shutting down (503)',
  E_INTERNAL: 'an internal error of the service (500)',
  E_SERVE: 'the service cannot start (e.g. it cannot listen on the address)',
  E_UNKNOWN: "a reward shim's name for an item error the service sent without a code",
  E_UNKNOWN_EPISODE: 'no such episode session: never issued, malformed, or expired from the episode journal (404)',
  E_EPISODE_OVER: 'a step sent to an episode that has already ended (409)',
  E_EPISODE_EVICTED:
    'a request to an episode evicted for a client below its fair share while a request of it ran; that one stands, ' +
    'and sending this again resumes the episode from its journal (503 with retry-after)',
  E_SESSION_MEMORY:
    'the episode sessions in memory hold their heap budget and every session over a fair share is busy: nothing was ' +
    'made, retry later (503 with retry-after)',
  E_TURN_CONFLICT: 'a step whose `turn` does not follow the episode, or repeats a turn with a different action (409)',
  E_IDEMPOTENCY_KEY_REUSED:
    'POST /v1/episodes with an Idempotency-Key that already created an episode of another identity (409)',
  E_TOO_MANY_SESSIONS:
    'the service holds its limit of open episode sessions and this client its fair share of them (the slots ' +
    "divided among the clients: client tokens or normalised addresses, then a client's ids); end some or " +
    'retry later (429 with retry-after)',
  E_TOO_MANY_CONNECTIONS:
    'the service holds its limit of OpenEnv WebSocket connections and this client its fair share of them; ' +
    'close some or retry later (429 with retry-after)',
  E_UNAUTHORIZED:
    'the request carries an Authorization header that is neither the operator token nor a client token ' +
    'the operator issued (401)',
  E_ORIGIN:
    'a request from a browser page (an Origin header: any route, a WebSocket upgrade included) whose origin ' +
    'the operator did not allow with --allow-origin: refused against cross-site pages (403)',
  E_HOST:
    'a request whose Host header names the service or dashboard by a name it does not answer to (not an IP ' +
    'address, not localhost, not one given with --allow-host): refused against DNS rebinding (403)',
  E_NOT_RUN:
    'the sandbox job that held this call stopped after other calls failed, before it ran; nothing changed, ' +
    'retry (503 with retry-after)',
  E_FORBIDDEN:
    'the request needs the operator token: revealing references, recording scores that steer, the admin routes (403)',
  E_JOURNAL:
    'the episode journal could not be written (a full disk, no file handles); the request changed ' +
    'nothing, retry later (503)',
} as const satisfies Record<string, string>;

/** The registry: every code, by group. */
export const CODES = { ...PROBLEM_CODES, ...LLM_CODES, ...HOST_CODES, ...SELECTION_CODES, ...SERVICE_CODES } as const;

export type Code = keyof typeof CODES;

export function isCode(value: unknown): value is Code {
  return typeof value === 'string' && Object.hasOwn(CODES, value);
}

export function isProblemCode(value: unknown): value is ProblemCode {
  return typeof value === 'string' && Object.hasOwn(PROBLEM_CODES, value);
}
