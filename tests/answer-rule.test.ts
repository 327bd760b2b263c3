// The one <answer> rule: the host's answerTag (sandbox/answer.ts) and kit.answer inside a real, locked-down
// isolate agree on the documented table (docs/environment-contract.md) and on thousands of seeded
// mixtures of tags, case variants and text; the validator's reference reading and its probes follow it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerContent, answerTag, withContent } from '../sandbox/answer.js';
import { SandboxPool } from '../sandbox/pool.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { answerTypeOf } from '../validators/novelty/behaviour.js';
import { envSource } from './helpers/env-source.js';

/** The rule as docs/environment-contract.md states it, case by case: [response, kit.answer(response)]. */
const TABLE: Array<[string, string | null]> = [
  ['<answer>42</answer>', '42'],
  ['I think so. <answer>  7 </answer>', '7'],
  ['<answer>\n3, 1, 2\n</answer> done', '3, 1, 2'],
  ['<answer></answer>', ''],
  ['no tag at all', null],
  ['<answer>unclosed', null],
  ['</answer><answer>5</answer>', '5'],
  ['<answer>1</answer><answer>2</answer>', null],
  ['<answer>1</answer> or <answer>', null],
  ['<answer>a<answer>b</answer>', null],
  ['<ANSWER>9</ANSWER>', null],
  ['<Answer>9</Answer> <answer>8</answer>', '8'],
  ['<answer >9</answer>', null],
  ['<answer>x</answer >', null],
  ['', null],
];

const PIECES = [
  '<answer>',
  '</answer>',
  '<ANSWER>',
  '</Answer>',
  '<answer',
  'answer>',
  ' ',
  '\n',
  '7',
  'x',
  '<',
  '>',
  '/',
];

/** Seeded mixtures of tag pieces and text, so the two implementations meet cases nobody wrote down. */
function mixtures(count: number): string[] {
  const rng = loadPlainRuntime().makeRng(0x5eed, 1, 2, 3);
  return Array.from({ length: count }, () => Array.from({ length: rng.int(0, 12) }, () => rng.pick(PIECES)).join(''));
}

describe('the <answer> rule', () => {
  let pool: SandboxPool;
  beforeAll(() => {
    pool = new SandboxPool({ workers: 1 });
  });
  afterAll(() => pool.close());

  /** kit.answer of each text, run by generate inside the sandbox (SES lockdown, the hardened kit). */
  async function kitInIsolate(texts: string[]): Promise<Array<string | null>> {
    const source = envSource({
      prelude: `const TEXTS = ${JSON.stringify(texts)};`,
      generate: "return { prompt: 'kit.answer of each text', answers: TEXTS.map((t) => kit.answer(t)) };",
    });
    const run = await pool.run({
      source,
      calls: [{ op: 'episode', seed: 1, level: 1, responses: [], keepInstance: true }],
    });
    const result = run.results[0];
    if (!result?.ok) throw new Error(`the probe module failed: ${JSON.stringify(result)}`);
    return (result.value as { instance: { answers: Array<string | null> } }).instance.answers;
  }

  it('the host reads the documented table exactly as stated', () => {
    expect(TABLE.map(([text]) => answerTag(text))).toEqual(TABLE.map(([, expected]) => expected));
  });

  it('the kit inside a locked-down isolate reads the documented table exactly as stated', async () => {
    expect(await kitInIsolate(TABLE.map(([text]) => text))).toEqual(TABLE.map(([, expected]) => expected));
  });

  it('host and isolate agree on 1,500 seeded mixtures of tags and text', async () => {
    const texts = mixtures(1_500);
    const host = texts.map(answerTag);
    expect(await kitInIsolate(texts)).toEqual(host);
    // The mixtures reach every outcome: a tag read, no tag, and tags refused for being several.
    expect(host.filter((a) => a !== null).length).toBeGreaterThan(50);
    expect(
      texts.filter((t, i) => host[i] === null && t.split('<answer>').length > 2 && t.includes('</answer>')).length,
    ).toBeGreaterThan(50);
  });

  it('a reference is read by the same rule, with the whole text when it has no single tag', () => {
    expect(answerContent('so <answer> 12 </answer>')).toBe('12');
    expect(answerContent('  12  ')).toBe('12');
    expect(answerContent('<answer>1</answer><answer>2</answer>')).toBe('<answer>1</answer><answer>2</answer>');
    // The novelty check's answer types read references the same way (no second, case-insensitive parser).
    expect(answerTypeOf(['<ANSWER>12</ANSWER>'])).toBe('text');
    expect(answerTypeOf(['<answer>12</answer>'])).toBe('int');
  });

  it('probes replace the content of the very tag the rule reads, and only that', () => {
    for (const [reference, content] of TABLE) {
      const probe = withContent(reference, 'PROBE');
      if (content === null) expect(probe).toBe('PROBE');
      else {
        expect(answerTag(probe)).toBe('PROBE');
        expect(probe.replace('PROBE', content)).toBe(
          reference.replace(/<answer>[\s\S]*?<\/answer>/, `<answer>${content}</answer>`),
        );
      }
    }
  });
});
