// The synthetic library the novelty benchmark checks against: seeded pseudo-environments (code of
// plausible shape, prompts from task templates with an answer type) and disguised copies of them.
import { disguise, syntheticSource } from './novelty-source.js';
import { int, pick, VOCAB, zipf, type Rand } from './novelty-words.js';

export const PROMPTS_PER_ENV = 12;

interface TaskSpec {
  intro: string[];
  data: string[];
  format: string;
  picks: string[];
  answerType: 'int' | 'list:int' | 'fraction' | 'decimal' | 'word' | 'text' | 'bool';
}

const FORMATS = [
  'Give your final answer as <answer>N</answer>.',
  'Reply with the result inside <answer></answer> tags.',
  'Write only the answer between <answer> and </answer>.',
  'End your response with <answer>your answer</answer>.',
];
const ANSWER_TYPES: Array<TaskSpec['answerType']> = [
  'int',
  'int',
  'int',
  'list:int',
  'list:int',
  'fraction',
  'decimal',
  'word',
  'text',
  'bool',
];

function taskSpec(rand: Rand): TaskSpec {
  const sentence = (lo: number, hi: number, slots: number): string[] => {
    const words = Array.from({ length: int(rand, lo, hi) }, () => zipf(rand, VOCAB));
    for (let s = 0; s < slots; s++)
      words.splice(int(rand, 1, words.length), 0, pick(rand, ['{n}', '{list}', '{pick}']));
    return words;
  };
  return {
    intro: sentence(8, 22, int(rand, 0, 2)),
    data: sentence(4, 14, int(rand, 1, 3)),
    format: pick(rand, FORMATS),
    picks: Array.from({ length: int(rand, 2, 6) }, () => pick(rand, VOCAB)),
    answerType: pick(rand, ANSWER_TYPES),
  };
}

function reference(spec: TaskSpec, rand: Rand): string {
  const n = (): number => int(rand, -50, 500);
  switch (spec.answerType) {
    case 'int':
      return `<answer>${n()}</answer>`;
    case 'list:int':
      return `<answer>${Array.from({ length: int(rand, 2, 6) }, n).join(', ')}</answer>`;
    case 'fraction':
      return `<answer>${n()}/${int(rand, 2, 97)}</answer>`;
    case 'decimal':
      return `<answer>${n()}.${int(rand, 1, 99)}</answer>`;
    case 'word':
      return `<answer>${pick(rand, spec.picks)}</answer>`;
    case 'text':
      return `<answer>${pick(rand, spec.picks)} ${pick(rand, VOCAB)} ${pick(rand, VOCAB)}</answer>`;
    default:
      return `<answer>${pick(rand, ['yes', 'no'])}</answer>`;
  }
}

export function prompts(spec: TaskSpec, rand: Rand): { prompts: string[]; references: string[] } {
  const fill = (words: string[], level: number): string =>
    words
      .map((w) =>
        w === '{n}'
          ? String(int(rand, 1, 100 * level))
          : w === '{list}'
            ? `[${Array.from({ length: 2 + level }, () => int(rand, 0, 99)).join(', ')}]`
            : w === '{pick}'
              ? pick(rand, spec.picks)
              : w,
      )
      .join(' ');
  const out: string[] = [];
  const refs: string[] = [];
  for (let i = 0; i < PROMPTS_PER_ENV; i++) {
    const level = 1 + (i % 10);
    out.push(`${fill(spec.intro, level)}. ${fill(spec.data, level)}. ${spec.format}`);
    refs.push(reference(spec, rand));
  }
  return { prompts: out, references: refs };
}

export interface SyntheticEnv {
  source: string;
  spec: TaskSpec;
}

export function freshEnv(rand: Rand): SyntheticEnv {
  return { source: syntheticSource(rand), spec: taskSpec(rand) };
}

export function copyOf(env: SyntheticEnv, rand: Rand): SyntheticEnv {
  return { source: disguise(env.source, rand), spec: env.spec };
}
