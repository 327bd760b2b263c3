// The code kind (contract v3): generate returns a statement, visible examples and hidden tests; solve the
// reference program. The host composes the prompt, and scores a response by running the program in its
// fenced block in the answer pool (never beside the environment's code) and comparing outputs itself.
import type { ProblemCode } from '../contract/codes.js';
import { canonicalJson } from '../contract/compare.js';
import { CODE_SEEDS_DIR } from '../contract/paths.js';
import {
  CODE_LIMITS,
  codeMetaProblems,
  parseCodeMeta,
  parseCodeTask,
  type CodeMeta,
  type CodeTask,
  type CodeTest,
} from '../contract/code.js';
import type { Instance } from '../contract/schema.js';
import type { Episode, EpisodeRequest, EpisodeResult, ScoredVerdict } from '../sandbox/episodes.js';
import type { CallResult, EpisodeValue, SandboxLimits } from '../sandbox/protocol.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { answerPoolFor } from '../sandbox/code/answer-pool.js';
import { ranOutOfTime, type AnswerResult, type AnswerSpec } from '../sandbox/code/answers.js';
import { extractProgram, fenceProgram, RUNNABLE_LANGUAGES } from '../sandbox/code/program.js';
import type { EnvKind } from './contract.js';

/** A code instance: the prompt the host composed, and the task as generate returned it. */
export type CodeInstance = Instance & CodeTask;

const show = (value: unknown) => JSON.stringify(value);
const COMPARE_NOTE = {
  exact: 'must equal the expected value exactly (same JSON types; object key order does not matter)',
  float: 'is compared with a relative tolerance of 1e-6 on every number',
  unordered: 'is a list whose order does not matter',
} as const;

/** The prompt of a task: the statement, the signature, the examples, and the answer format. */
export function codePrompt(meta: CodeMeta, task: CodeTask): string {
  const call = (input: unknown[]) => `${meta.entry}(${input.map(show).join(', ')})`;
  const examples = task.examples.map((e) => `${call(e.input)} returns ${show(e.output)}`).join('\n');
  const scoring =
    meta.scoring === 'all-pass'
      ? 'It scores 1 only if it passes every hidden test.'
      : 'It scores the share of hidden tests it passes.';
  return (
    `${task.statement}\n\nWrite a JavaScript function \`${meta.entry}(${meta.params.join(', ')})\`. Arguments ` +
    `and the return value are JSON values; the return value ${COMPARE_NOTE[meta.compare]}. The function must ` +
    `be self-contained: no imports, no input or output, no clock or randomness.\n\nExamples:\n${examples}` +
    `\n\nReply with the complete function in one fenced code block (\`\`\`javascript … \`\`\`; ` +
    `\`\`\`typescript is accepted too). It is run on ${task.tests.length} hidden tests. ${scoring}`
  );
}

/** The score of one answer's tests under the meta's scoring. */
export function scoreTests(meta: Pick<CodeMeta, 'scoring'>, result: AnswerResult): ScoredVerdict {
  const n = result.tests.length;
  const passed = result.tests.filter((t) => t === null).length;
  const score = meta.scoring === 'fraction' ? (n === 0 ? 0 : passed / n) : passed === n && n > 0 ? 1 : 0;
  // Feedback never carries what a program printed or threw while it ran a test: that could spell out the hidden tests.
  const first = result.tests.find((t) => t !== null);
  const feedback = !result.ran
    ? `the program did not run (${result.code}): ${result.message ?? ''}`.slice(0, 500)
    : `passed ${passed} of ${n} hidden tests${first ? ` (first failure: ${first})` : ''}`;
  return {
    ok: true,
    score,
    feedback,
    ...(ranOutOfTime(result) ? { clocked: true as const } : {}),
    ...(stoppedOnly(result) ? { stopped: true as const } : {}),
  };
}

const STOPS: ReadonlySet<string | undefined> = new Set(['E_TIMEOUT', 'E_MEMORY', 'E_CRASHED']);

/** Whether an answer failed only where the clock or memory stopped it: no test (or load) failed with a wrong result. */
const stoppedOnly = (r: AnswerResult): boolean =>
  r.ran ? r.tests.some((t) => t !== null) && r.tests.every((t) => t === null || STOPS.has(t)) : STOPS.has(r.code);

/** Which wall-clock budget stopped a program (ranOutOfTime). */
const clockStopped = (r: AnswerResult) =>
  r.code === 'E_TIMEOUT'
    ? "the answer's wall-clock budget (loading it)"
    : r.tests.includes('E_TIMEOUT')
      ? "the answer's wall-clock budget (a hidden test)"
      : "the answer pool's watchdog (its worker wedged)";

interface Pending {
  request: EpisodeRequest;
  instance: CodeInstance;
  program: string;
  ms: [number, number, number];
}

function failure(r: EpisodeRequest, code: ProblemCode, message: string, fn: string): EpisodeResult {
  return { ok: false, seed: r.seed, level: r.level, code, message, fn };
}

/** generate and solve in the environment's sandbox: the task checked, its prompt composed, the reference program. */
function toPending(request: EpisodeRequest, result: CallResult, meta: CodeMeta): Pending | EpisodeResult {
  if (!result.ok) return failure(request, result.code, result.message, result.fn);
  const value = result.value as EpisodeValue;
  const parsed = parseCodeTask(value?.instance, meta.params.length);
  if ('problem' in parsed)
    return failure(
      request,
      'E_INSTANCE',
      `generate returned a task that does not match contract v3: ${parsed.problem}`,
      'generate',
    );
  const program = value.reference;
  if (typeof program !== 'string' || program.trim() === '' || program.length > CODE_LIMITS.maxProgramChars)
    return failure(
      request,
      'E_REFERENCE',
      `solve must return the reference program as a non-empty string of at most ` +
        `${CODE_LIMITS.maxProgramChars} characters`,
      'solve',
    );
  const prompt = codePrompt(meta, parsed.task);
  const ms = Array.isArray(value.ms) ? value.ms : [0, 0, 0];
  return { request, instance: { prompt, ...parsed.task }, program, ms: [ms[0] ?? 0, ms[1] ?? 0, 0] };
}

/** What the answer pool runs for one response: its program with the instance's tests, or the verdict it gets unrun. */
export function answerSpec(meta: CodeMeta, task: CodeTask, response: string): AnswerSpec | ScoredVerdict {
  const found = extractProgram(response);
  if (!found.ok)
    return found.reason === 'language'
      ? { ok: false, code: 'E_LANGUAGE', message: found.message }
      : { ok: true, score: 0, feedback: found.message };
  if (!RUNNABLE_LANGUAGES.has(found.language))
    return {
      ok: false,
      code: 'E_LANGUAGE',
      message: `${found.language} answers are not run by this host: answer in JavaScript or TypeScript`,
    };
  return {
    program: found.program,
    language: found.language,
    entry: meta.entry,
    compare: meta.compare,
    tests: task.tests.map((t) => [canonicalJson(t.input), canonicalJson(t.output)]),
  };
}

/**
 * The answer-pool limits that follow from the sandbox limits a caller passed (the same everywhere: validation, service,
 * export).
 */
const answerLimits = (limits: Partial<SandboxLimits> | undefined) => ({
  ...(limits?.callTimeoutMs ? { testTimeoutMs: limits.callTimeoutMs } : {}),
  ...(limits?.memoryMb ? { memoryMb: limits.memoryMb } : {}),
});

/**
 * Runs programs on tests of the caller's choosing (a mutant on an instance's visible examples) in the answer pool:
 * per job, whether a test failed (true), every test passed (false), or null where the clock, memory or the load
 * decided (no evidence either way).
 */
export async function failsTests(
  pool: SandboxPool,
  meta: CodeMeta,
  jobs: ReadonlyArray<{ program: string; tests: readonly CodeTest[] }>,
  limits?: Partial<SandboxLimits>,
): Promise<Array<boolean | null>> {
  const specs = jobs.map((j) => answerSpec(meta, { ...EMPTY_TASK, tests: [...j.tests] }, fenceProgram(j.program)));
  const runnable = specs.filter((s): s is AnswerSpec => 'program' in s);
  const results = await answerPoolFor(pool).run(runnable, answerLimits(limits));
  let at = 0;
  return specs.map((s) => {
    if (!('program' in s)) return null;
    const r = results[at++] as AnswerResult;
    if (!r.ran || ranOutOfTime(r) || r.tests.includes('E_MEMORY')) return null;
    return r.tests.some((t) => t !== null);
  });
}

const EMPTY_TASK: CodeTask = { statement: '', examples: [], tests: [] };

export const code: EnvKind = {
  name: 'code',
  label: 'code',
  contract: 'code (contract v3: generate, solve; the answer is a program)',
  rollouts: false,
  contractVersion: 3,
  architectAsk:
    'Propose code specs only: each asks the policy to write a function that hidden tests check (contract ' +
    'v3); the requested format has no kind and no episodic part.',
  claims: (meta) => meta !== null && typeof meta === 'object' && (meta as { kind?: unknown }).kind === 'code',
  exports: { meta: 'object', generate: 'function', solve: 'function' },
  checkMeta: (raw) => {
    const meta = parseCodeMeta(raw);
    return meta ? { meta, problems: [] } : { problems: codeMetaProblems(raw) };
  },
  runEpisodes: async (pool, source, requests, { owner, signal, ...options } = {}) => {
    const started = performance.now();
    const calls = requests.map((r) => ({ op: 'episode' as const, seed: r.seed, level: r.level, responses: [] }));
    const run = await pool.run({ source, calls, ...options });
    const meta = run.load.ok ? parseCodeMeta(run.load.meta) : null;
    if (!meta) {
      const message = run.load.ok ? 'meta does not match contract v3' : run.load.message;
      return {
        load: run.load,
        wallMs: performance.now() - started,
        episodes: requests.map((r) => failure(r, run.load.ok ? 'E_META' : run.load.code, message, 'load')),
      };
    }
    const staged = requests.map((r, i) => toPending(r, run.results[i] as CallResult, meta));
    const specs: AnswerSpec[] = [];
    const slots = staged.map((p) => {
      if (!('program' in p)) return [];
      const responses = [fenceProgram(p.program), ...(p.request.responses ?? [])];
      return responses.map((response, r) => {
        const spec = answerSpec(meta, p.instance, response);
        if (!('program' in spec)) return spec;
        specs.push(r === 0 ? { ...spec, ownIsolate: true } : spec); // the reference program: an isolate of its own
        return specs.length - 1;
      });
    });
    const results = await answerPoolFor(pool).run(specs, answerLimits(options.limits), {
      ...(owner !== undefined ? { owner } : {}),
      ...(signal ? { signal } : {}),
    });
    const verdict = (slot: number | ScoredVerdict) =>
      typeof slot === 'number' ? scoreTests(meta, results[slot] as AnswerResult) : slot;
    const episodes = staged.map((p, i): EpisodeResult => {
      if (!('program' in p)) return p;
      const own = slots[i] as Array<number | ScoredVerdict>;
      const ownResult = typeof own[0] === 'number' ? results[own[0]] : undefined;
      // The clock stopping the reference program is a timeout (a load-sensitive code, re-validated before it
      // counts), not a reference that verify scores below 1 (E_UNSOLVED) or runs that differ (E_NONDETERMINISTIC).
      if (ownResult && ranOutOfTime(ownResult))
        return failure(p.request, 'E_TIMEOUT', `the reference program ran past ${clockStopped(ownResult)}`, 'solve');
      const [reference, ...verdicts] = own.map(verdict);
      // The reference program's own run time stands for the verify step (the isolate's setup is envforge's).
      const answerMs = typeof own[0] === 'number' ? (results[own[0]]?.ms ?? 0) : 0;
      const episode: Episode = {
        ok: true,
        seed: p.request.seed,
        level: p.request.level,
        instance: p.instance,
        reference: fenceProgram(p.program),
        referenceVerdict: reference as ScoredVerdict,
        verdicts,
        ms: [p.ms[0], p.ms[1], answerMs],
      };
      return episode;
    });
    return { load: run.load, episodes, wallMs: performance.now() - started };
  },
  probeFamilies: [],
  behaviour: (episode) => ({ text: episode.instance.prompt, reference: episode.reference }),
  exportable: true,
  hostScored: true,
  exportView: (instance) => ({ prompt: instance.prompt }),
  // A code module is reviewed with the single-turn checklist and its own contract.
  prompts: { generator: 'generator-code', repair: 'repair-code', reviewer: 'reviewer' },
  architectTokens: 450,
  sampleLimits: {
    standard: { samples: 4, chars: 4000, observationChars: 0, transcriptChars: 0 },
    compact: { samples: 2, chars: 1500, observationChars: 0, transcriptChars: 0 },
  },
  seeds: { dir: CODE_SEEDS_DIR, library: false, slow: false },
  mixed: false,
};
