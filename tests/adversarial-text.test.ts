// Host work on guest text stays linear: every parser and regex the host runs on what a module (or the model
// writing it) produces gets megabyte-sized adversarial strings, under time bounds a quadratic pass could not
// meet (seconds per call, where a quadratic scan of a megabyte takes minutes). Add a row to SUBJECTS for
// every new function that reads guest output: prompts, references, responses, meta, feedback, messages.
import { describe, expect, it } from 'vitest';
import { MetaSchema } from '../contract/schema.js';
import { shapeOf } from '../validators/answers.js';
import { judgeReaders } from '../validators/readers.js';
import { READERS } from '../validators/checks/readers.js';
import { nonAnswers, promptTokens, reasoning } from '../validators/probe-forms.js';
import { restatements } from '../validators/restatements.js';
import { tokenGuesses } from '../validators/prompt-lists.js';
import { jsonCandidates } from '../agents/llm/structured.js';
import { extractModule } from '../agents/module-text.js';
import { normaliseTag } from '../agents/spec.js';
import { ideaTokens } from '../agents/spec-dedupe.js';
import { checkVerdict } from '../sandbox/episodes.js';
import { jsonDepth, parseBoundedJson } from '../sandbox/json.js';
import { DEFAULT_LIMITS, type Call } from '../sandbox/protocol.js';
import { ResultSlots } from '../sandbox/results.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { boundDepth } from '../validators/bounded.js';
import { answerTypeOf, behaviourFingerprint, maskPrompt } from '../validators/novelty/behaviour.js';
import { codeFingerprint, normaliseCode } from '../validators/novelty/code.js';
import { answerContent } from '../sandbox/answer.js';

const MB = 1 << 20;
const times = (unit: string) => unit.repeat(Math.ceil(MB / unit.length));

/** Strings built to defeat backtracking regexes and naive scans: unclosed tags, long runs, deep brackets. */
export const ADVERSARIAL: Record<string, string> = {
  'unclosed answer tags': times('<answer>'),
  'one open tag, no close': `<answer>${'a'.repeat(MB)}`,
  'upper-case tags, no close': times('<ANSWER>x'),
  'digits then junk': `${'1'.repeat(MB)}x`,
  'spaces then junk': `${' '.repeat(MB)}x`,
  'blank lines': times('\n'),
  'blank lines then export-less text': `${times('\n \t')}x`,
  separators: times('a,'),
  'signed numbers': times('-1'),
  'decimal dots': times('1.'),
  'fraction slashes': times('1/'),
  'open brackets': times('['),
  'brackets and strings': times('["'),
  'backtick runs': times('``x'),
  'comment openers': times('/*'),
  'line comments': times('//\n'),
  fences: times('```\n'),
  'quotes and escapes': times('"\\'),
  'letters and digits': times('a1'),
  'non-ASCII letters': times('İß'),
  'template pieces': times('`${'),
  'mixed word list': times('yes no 1 a '),
};

const kit = loadPlainRuntime().kit;
const slotsFor = (n: number) =>
  new ResultSlots(Array.from({ length: n }, (_, seed): Call => ({ op: 'episode', seed, level: 1 })));

/** Host functions that read guest text, each given one adversarial string. A throw is fine; slowness is not. */
const SUBJECTS: Array<[string, (text: string) => unknown]> = [
  ['answer.answerContent (references)', answerContent],
  ['novelty.answerTypeOf (references)', (t) => answerTypeOf([t, t.slice(0, MB >> 1)])],
  ['novelty.maskPrompt (prompts)', maskPrompt],
  ['novelty.behaviourFingerprint (prompts)', (t) => behaviourFingerprint([t], [t])],
  ['novelty.normaliseCode (module source)', normaliseCode],
  ['novelty.codeFingerprint (module source)', codeFingerprint],
  ['json.jsonDepth (runtime output)', (t) => jsonDepth(t)],
  ['json.parseBoundedJson (runtime output)', (t) => parseBoundedJson(t, { maxChars: 4 * MB, maxDepth: 40 })],
  ['results.acceptChunk (runtime chunks)', (t) => slotsFor(4).acceptChunk(t, DEFAULT_LIMITS)],
  [
    'results.acceptChunk (a chunk carrying the text)',
    (t) =>
      slotsFor(4).acceptChunk(
        JSON.stringify([{ id: 0, ok: false, code: 'E_THROWN', message: t, fn: 'verify' }]),
        DEFAULT_LIMITS,
      ),
  ],
  ['episodes.checkVerdict (verdict feedback)', (t) => checkVerdict({ ok: true, value: { score: 0.5, feedback: t } })],
  [
    'contract MetaSchema (meta)',
    (t) => MetaSchema.safeParse({ name: t, title: t, description: t, skills: [t], levels: 3 }),
  ],
  ['report boundDepth (evidence)', (t) => boundDepth({ evidence: [t, { deeper: t }] })],
  [
    'agents extractModule (model replies)',
    (t) => {
      try {
        return extractModule(t);
      } catch {
        return null;
      }
    },
  ],
  ['llm jsonCandidates (structured replies)', jsonCandidates],
  ['spec normaliseTag and ideaTokens (model specs)', (t) => [normaliseTag(t), ideaTokens(t)]],
  ['kit.answer (responses, in the isolate)', (t) => kit.answer(t)],
  ['kit.normalize (responses)', (t) => kit.normalize(t)],
  ['kit.number (responses)', (t) => kit.number(t)],
  ['kit.list (responses)', (t) => kit.list(t)],
  ['learned readers (prompts)', (t) => judgeReaders([leakSample(t, '42', 1), leakSample(t, '43', 2)], READERS)],
  [
    'guessing tokenGuesses and promptTokens (prompts)',
    (t) => [tokenGuesses(t, shapeOf('alpha, beta, gamma')), promptTokens(t, '42', shapeOf('42'), 8, 1)],
  ],
  ['restatements of the question (prompts)', (t) => restatements(t, 3)],
  [
    'probes nonAnswers and reasoning (references, prompts)',
    (t) => [nonAnswers(t, shapeOf(t), new Set()), reasoning(t, '<answer>1</answer>', '42')],
  ],
];
const leakSample = (prompt: string, answer: string, seed: number) => ({
  seed,
  level: 1,
  reference: `<answer>${answer}</answer>`,
  instance: { prompt },
});

/**
 * CPU milliseconds one call may use: linear work on a megabyte is milliseconds, quadratic is minutes. CPU time
 * (process.cpuUsage), not wall time, so other processes on a loaded machine do not count.
 */
const BOUND_MS = 3_000;
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

describe('host work on guest text is linear', () => {
  it.each(SUBJECTS)('%s stays fast on every megabyte adversarial string', (_name, fn) => {
    const slow: string[] = [];
    for (const [label, text] of Object.entries(ADVERSARIAL)) {
      const started = process.cpuUsage();
      try {
        fn(text);
      } catch {
        // a refusal is an answer; only time matters here
      }
      const ms = cpuMs(started);
      if (ms > BOUND_MS) slow.push(`${label}: ${Math.round(ms)} ms`);
    }
    expect(slow).toEqual([]);
  });

  it("answerContent reads the one answer tag by kit.answer's rule, and the whole text without one", () => {
    expect(answerContent('x <Answer> 42 </ANSWER> <answer>7</answer>')).toBe('7');
    expect(answerContent('  <answer> 42 </answer> because  ')).toBe('42');
    expect(answerContent('<answer><answer>5</answer>')).toBe('<answer><answer>5</answer>');
    expect(answerContent('<answer>1</answer><answer>2</answer>')).toBe('<answer>1</answer><answer>2</answer>');
    expect(answerContent('  no tag  ')).toBe('no tag');
    expect(answerContent('<answer>unclosed')).toBe('<answer>unclosed');
    expect(answerContent('<\u000fanswer>1</answer>')).toBe('<\u000fanswer>1</answer>');
  });
});
