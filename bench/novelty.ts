// Benchmarks stage 8 (novelty): one candidate's check against a library of 10,000 synthetic environment fingerprints, LSH query side by side with a full scan.
import { deriveRngState } from '../sandbox/rng.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import {
  NoveltyIndex,
  estimateSimilarity,
  fingerprint,
  type Fingerprint,
  type NoveltyMatch,
  type NoveltyOptions,
} from '../validators/novelty.js';

export type BenchResult = Record<string, { value: number; unit: string; [k: string]: unknown }>;

const DEFAULT_LIBRARY_SIZE = 10_000;
/** Share of the library that are disguised copies of earlier entries (so queries meet real duplicates). */
const LIBRARY_COPY_RATE = 0.02;
const DEFAULT_CANDIDATES = 200;
const DEFAULT_ROUNDS = 5;
const PROMPTS_PER_ENV = 12;
const SEED = 0x0e4f0e4f;

// ------------------------------------------------------------------------------------------ seeded generator

type Rand = () => number;

/** The product's own seeded rng (xoshiro128**), so synthetic libraries are reproducible. */
function prng(seed: number): () => number {
  const rng = loadPlainRuntime().makeRng(...deriveRngState('synthetic-library', seed, 1));
  return () => rng.float();
}

const int = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
/** Zipf-like pick: low indices (common words) are much more likely. */
const zipf = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(Math.pow(rand(), 2.5) * items.length)] as T;

const SYLLABLES = ['ka', 'lo', 'mi', 'ner', 'tas', 'vo', 'ri', 'pen', 'dul', 'sa', 'qui', 'bor', 'te', 'fa', 'gon', 'hel', 'ju', 'wex', 'yam', 'zor', 'in', 'ex', 'st', 'ar', 'um'];

function makeVocabulary(rand: Rand, size: number): string[] {
  const seen = new Set<string>(['the', 'of', 'a', 'is', 'and', 'to', 'in', 'each', 'how', 'many', 'what', 'given', 'find', 'compute', 'with', 'from', 'that', 'are', 'you', 'your']);
  while (seen.size < size) {
    let w = '';
    const n = int(rand, 1, 4);
    for (let i = 0; i < n; i++) w += pick(rand, SYLLABLES);
    seen.add(w);
  }
  return [...seen];
}

const rootRand = prng(SEED);
const VOCAB = makeVocabulary(rootRand, 4000);
// Drop the 20 common English words every vocabulary starts with: some are keywords ('in', 'of').
const IDENTS = makeVocabulary(prng(SEED ^ 0x1d), 1520).slice(20).map((w, i) => (i % 3 === 0 ? w : w + pick(rootRand, ['', 'Count', 'List', 'Max', 'Idx', 'Sum', 'Set'])));

// ------------------------------------------------------------------------------------------ pseudo-environments

const IDENT_SET: ReadonlySet<string> = new Set(IDENTS);

const MEMBERS = ['push', 'map', 'filter', 'reduce', 'slice', 'join', 'sort', 'includes', 'indexOf', 'length', 'some', 'every', 'concat', 'reverse'];
const MATH = ['floor', 'max', 'min', 'abs', 'ceil', 'round', 'sqrt'];
const BINOPS = ['+', '-', '*', '%', '/', '+', '-'];
const CMPS = ['<', '<=', '>', '>=', '===', '!=='];
const ASSIGN = ['=', '+=', '-=', '*='];

class SourceWriter {
  private readonly names: string[];
  constructor(private readonly rand: Rand, nameCount: number) {
    this.names = Array.from({ length: nameCount }, () => pick(rand, IDENTS));
  }
  id(): string { return pick(this.rand, this.names); }
  num(): string { return String(int(this.rand, 0, this.rand() < 0.7 ? 10 : 1000)); }
  str(): string { return `'${Array.from({ length: int(this.rand, 1, 5) }, () => zipf(this.rand, VOCAB)).join(' ')}'`; }

  expr(depth: number): string {
    const r = this.rand;
    if (depth <= 0) return r() < 0.6 ? this.id() : this.num();
    switch (int(r, 0, 9)) {
      case 0: case 1: return `${this.expr(depth - 1)} ${pick(r, BINOPS)} ${this.expr(depth - 1)}`;
      case 2: return `${this.id()}[${this.expr(depth - 1)}]`;
      case 3: return `${this.id()}.length`;
      case 4: return `Math.${pick(r, MATH)}(${this.expr(depth - 1)})`;
      case 5: return `rng.int(${this.expr(depth - 1)}, ${this.expr(depth - 1)})`;
      case 6: return `(${this.expr(depth - 1)})`;
      case 7: return `${this.id()}(${this.expr(depth - 1)})`;
      case 8: return `${this.cond(depth - 1)} ? ${this.expr(depth - 1)} : ${this.expr(depth - 1)}`;
      default: return r() < 0.5 ? this.id() : this.num();
    }
  }

  cond(depth: number): string {
    const r = this.rand;
    const k = int(r, 0, 5);
    if (k === 0 && depth > 0) return `${this.cond(depth - 1)} && ${this.cond(depth - 1)}`;
    if (k === 1) return `!${this.id()}`;
    return `${this.expr(Math.max(0, depth - 1))} ${pick(r, CMPS)} ${this.expr(Math.max(0, depth - 1))}`;
  }

  stmt(depth: number, indent: string): string {
    const r = this.rand;
    const inner = (): string => this.block(depth - 1, indent + '  ', int(r, 1, 3));
    const k = depth > 0 ? int(r, 0, 15) : int(r, 0, 8);
    switch (k) {
      case 0: return `${indent}const ${this.id()} = ${this.expr(2)};`;
      case 1: return `${indent}let ${this.id()} = ${this.num()};`;
      case 2: return `${indent}${this.id()}.push(${this.expr(1)});`;
      case 3: return `${indent}${this.id()} ${pick(r, ASSIGN)} ${this.expr(2)};`;
      case 4: return `${indent}const ${this.id()} = ${this.id()}.${pick(r, MEMBERS)}((${this.id()}) => ${this.expr(1)});`;
      case 5: return `${indent}const ${this.id()} = new Array(${this.expr(1)}).fill(${this.num()});`;
      case 6: return `${indent}if (${this.cond(1)}) return ${this.expr(1)};`;
      case 7: return `${indent}${this.id()}[${this.expr(1)}] = ${this.expr(2)};`;
      case 8: return `${indent}const ${this.id()} = \`${this.str().slice(1, -1)} \${${this.id()}} ${this.str().slice(1, -1)}\`;`;
      case 9: case 10: { const i = this.id(); return `${indent}for (let ${i} = 0; ${i} < ${this.id()}.length; ${i}++) {\n${inner()}\n${indent}}`; }
      case 11: return `${indent}for (const ${this.id()} of ${this.id()}) {\n${inner()}\n${indent}}`;
      case 12: case 13: return `${indent}if (${this.cond(2)}) {\n${inner()}\n${indent}} else {\n${inner()}\n${indent}}`;
      case 14: return `${indent}while (${this.cond(1)}) {\n${inner()}\n${indent}}`;
      default: return `${indent}// ${this.str().slice(1, -1)}\n${indent}const ${this.id()} = rng.pick([${this.str()}, ${this.str()}]);`;
    }
  }

  block(depth: number, indent: string, count: number): string {
    return Array.from({ length: count }, () => this.stmt(depth, indent)).join('\n');
  }

  fn(name: string, params: string, statements: number): string {
    return `function ${name}(${params}) {\n${this.block(2, '  ', statements)}\n  return ${this.expr(2)};\n}`;
  }
}

/** A varied pseudo-environment module (roughly 300 to 1,500 normalised tokens). */
function syntheticSource(rand: Rand): string {
  const w = new SourceWriter(rand, int(rand, 8, 20));
  const helpers = Array.from({ length: int(rand, 1, 4) }, () => w.fn(w.id(), `${w.id()}, ${w.id()}`, int(rand, 2, 8)));
  return [
    `// ${w.str().slice(1, -1)}`,
    `export const meta = { name: ${w.str()}, title: ${w.str()}, description: ${w.str()}, skills: [${w.str()}], levels: ${int(rand, 3, 20)} };`,
    `const ${w.id().toUpperCase()} = [${w.str()}, ${w.str()}, ${w.str()}];`,
    ...helpers,
    `export ${w.fn('generate', 'rng, level', int(rand, 3, 10)).replace(/\n {2}return [^\n]*\n\}$/, '\n  return { prompt: ' + w.str() + ' + ' + w.id() + ', answer: ' + w.expr(1) + ' };\n}')}`,
    `export function solve(instance) {\n  return '<answer>' + instance.answer + '</answer>';\n}`,
    `export function verify(instance, response) {\n  const got = kit.answer(response);\n${w.block(1, '  ', int(rand, 1, 4))}\n  return got === String(instance.answer) ? 1 : 0;\n}`,
  ].join('\n\n');
}

/** A disguised copy: other identifier names, other numbers and comments, and a few inserted statements. */
function disguise(source: string, rand: Rand): string {
  const renames = new Map<string, string>();
  let out = source.replace(/\b[a-z][A-Za-z]*\b/g, (word) => {
    if (!IDENT_SET.has(word)) return word;
    let to = renames.get(word);
    if (!to) { to = `${pick(rand, IDENTS)}${pick(rand, ['X', 'Y', 'Z', 'Q'])}`; renames.set(word, to); }
    return to;
  });
  out = out.replace(/\b\d+\b/g, () => String(int(rand, 0, 99))).replace(/\/\/ [^\n]*/g, '// rewritten');
  const lines = out.split('\n');
  for (let e = int(rand, 0, 2); e > 0; e--) lines.splice(int(rand, 1, lines.length - 1), 0, `  const tmp${e} = ${int(rand, 0, 9)};`);
  return lines.join('\n');
}

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
const ANSWER_TYPES: Array<TaskSpec['answerType']> = ['int', 'int', 'int', 'list:int', 'list:int', 'fraction', 'decimal', 'word', 'text', 'bool'];

function taskSpec(rand: Rand): TaskSpec {
  const sentence = (lo: number, hi: number, slots: number): string[] => {
    const words = Array.from({ length: int(rand, lo, hi) }, () => zipf(rand, VOCAB));
    for (let s = 0; s < slots; s++) words.splice(int(rand, 1, words.length), 0, pick(rand, ['{n}', '{list}', '{pick}']));
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
    case 'int': return `<answer>${n()}</answer>`;
    case 'list:int': return `<answer>${Array.from({ length: int(rand, 2, 6) }, n).join(', ')}</answer>`;
    case 'fraction': return `<answer>${n()}/${int(rand, 2, 97)}</answer>`;
    case 'decimal': return `<answer>${n()}.${int(rand, 1, 99)}</answer>`;
    case 'word': return `<answer>${pick(rand, spec.picks)}</answer>`;
    case 'text': return `<answer>${pick(rand, spec.picks)} ${pick(rand, VOCAB)} ${pick(rand, VOCAB)}</answer>`;
    default: return `<answer>${pick(rand, ['yes', 'no'])}</answer>`;
  }
}

function prompts(spec: TaskSpec, rand: Rand): { prompts: string[]; references: string[] } {
  const fill = (words: string[], level: number): string => words.map((w) =>
    w === '{n}' ? String(int(rand, 1, 100 * level))
      : w === '{list}' ? `[${Array.from({ length: 2 + level }, () => int(rand, 0, 99)).join(', ')}]`
        : w === '{pick}' ? pick(rand, spec.picks) : w).join(' ');
  const out: string[] = [];
  const refs: string[] = [];
  for (let i = 0; i < PROMPTS_PER_ENV; i++) {
    const level = 1 + (i % 10);
    out.push(`${fill(spec.intro, level)}. ${fill(spec.data, level)}. ${spec.format}`);
    refs.push(reference(spec, rand));
  }
  return { prompts: out, references: refs };
}

interface SyntheticEnv { source: string; spec: TaskSpec }

function freshEnv(rand: Rand): SyntheticEnv {
  return { source: syntheticSource(rand), spec: taskSpec(rand) };
}

function copyOf(env: SyntheticEnv, rand: Rand): SyntheticEnv {
  return { source: disguise(env.source, rand), spec: env.spec };
}

// ------------------------------------------------------------------------------------------ bench

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

const key = (m: NoveltyMatch): string => `${m.id}:${m.kind}`;

export interface NoveltyBenchConfig {
  librarySize: number;
  candidates: number;
  rounds: number;
  options: Partial<NoveltyOptions>;
}

/** novelty.ms10k and novelty.speedupVsScan, measured side by side in one run. */
export async function benchNovelty(): Promise<BenchResult> {
  return runNoveltyBench({});
}

/** The same measurement with other sizes or index options (for exploring the banding). */
export async function runNoveltyBench(config: Partial<NoveltyBenchConfig>): Promise<BenchResult> {
  const LIBRARY_SIZE = config.librarySize ?? DEFAULT_LIBRARY_SIZE;
  const CANDIDATES = config.candidates ?? DEFAULT_CANDIDATES;
  const ROUNDS = config.rounds ?? DEFAULT_ROUNDS;
  const rand = prng(SEED ^ 0x5a5a);
  const envs: SyntheticEnv[] = [];
  const index = new NoveltyIndex(config.options);
  const fingerprintOf = (env: SyntheticEnv, r: Rand): Fingerprint => {
    const sample = prompts(env.spec, r);
    return fingerprint(env.source, sample.prompts, sample.references, config.options);
  };

  const buildStart = performance.now();
  let fingerprintTotal = 0;
  for (let i = 0; i < LIBRARY_SIZE; i++) {
    const env = i > 100 && rand() < LIBRARY_COPY_RATE ? copyOf(envs[int(rand, 0, envs.length - 1)] as SyntheticEnv, rand) : freshEnv(rand);
    envs.push(env);
    const t = performance.now();
    const fp = fingerprintOf(env, rand);
    fingerprintTotal += performance.now() - t;
    index.add(`env-${i}`, fp);
  }
  const buildMs = performance.now() - buildStart;

  // Candidates: half disguised copies of library entries (expected duplicates), half fresh environments.
  const candidateEnvs: SyntheticEnv[] = Array.from({ length: CANDIDATES }, (_, i) =>
    i % 2 === 0 ? copyOf(envs[int(rand, 0, envs.length - 1)] as SyntheticEnv, rand) : freshEnv(rand));
  const candidateRands = candidateEnvs.map((_, i) => SEED + i);
  const fingerprintCandidates = (): Fingerprint[] => candidateEnvs.map((env, i) => fingerprintOf(env, prng(candidateRands[i] as number)));
  const candidates = fingerprintCandidates();

  // Warm-up (JIT) on every path, then ROUNDS interleaved rounds; each figure is the median round's mean.
  for (const fp of candidates.slice(0, 20)) { index.query(fp); index.scan(fp); }
  fingerprintCandidates();
  const fpRounds: number[] = [];
  const queryRounds: number[] = [];
  const scanRounds: number[] = [];
  let sink = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let t = performance.now();
    sink += fingerprintCandidates().length;
    fpRounds.push((performance.now() - t) / CANDIDATES);
    t = performance.now();
    for (const fp of candidates) sink += index.query(fp).length;
    queryRounds.push((performance.now() - t) / CANDIDATES);
    t = performance.now();
    for (const fp of candidates) sink += index.scan(fp).length;
    scanRounds.push((performance.now() - t) / CANDIDATES);
  }
  const fingerprintMs = median(fpRounds);
  const queryMs = median(queryRounds);
  const scanMs = median(scanRounds);

  // Agreement with the scan (recall of the LSH index) and how much of the library LSH touches.
  let scanMatches = 0;
  let found = 0;
  let candidatesWithMatch = 0;
  let lshCandidates = 0;
  for (const fp of candidates) {
    const truth = index.scan(fp);
    const got = new Set(index.query(fp).map(key));
    lshCandidates += index.lastCandidates;
    scanMatches += truth.length;
    for (const m of truth) if (got.has(key(m))) found++;
    if (truth.length > 0) candidatesWithMatch++;
  }
  // Background similarity between unrelated library entries (a sample of pairs).
  let background = 0;
  let backgroundMax = 0;
  let behaviourBackground = 0;
  let behaviourBackgroundMax = 0;
  const pairs = 2000;
  const fps = index.toJSON().entries;
  for (let k = 0; k < pairs; k++) {
    const a = fps[int(rand, 0, fps.length - 1)];
    const b = fps[int(rand, 0, fps.length - 1)];
    if (!a || !b || a === b) continue;
    const s = estimateSimilarity(a.code, b.code);
    background += s;
    backgroundMax = Math.max(backgroundMax, s);
    const sb = estimateSimilarity(a.behaviour, b.behaviour);
    behaviourBackground += sb;
    behaviourBackgroundMax = Math.max(behaviourBackgroundMax, sb);
  }

  const common = {
    library: index.size,
    candidates: CANDIDATES,
    rounds: ROUNDS,
    permutations: index.options.permutations,
    bands: index.options.bands,
    recall: scanMatches === 0 ? 1 : found / scanMatches,
    avgLshCandidates: Math.round(lshCandidates / CANDIDATES),
    scanMatches,
    candidatesWithMatch,
  };
  return {
    'novelty.ms10k': {
      value: round3(fingerprintMs + queryMs),
      unit: 'ms',
      note: `per candidate: fingerprint (code + ${PROMPTS_PER_ENV} prompts) + LSH query against ${LIBRARY_SIZE} fingerprints`,
      fingerprintMs: round3(fingerprintMs),
      queryMs: round4(queryMs),
      libraryBuildMs: Math.round(buildMs),
      libraryFingerprintMsEach: round3(fingerprintTotal / LIBRARY_SIZE),
      backgroundCodeSimilarityMean: round3(background / pairs),
      backgroundCodeSimilarityMax: round3(backgroundMax),
      backgroundBehaviourSimilarityMean: round3(behaviourBackground / pairs),
      backgroundBehaviourSimilarityMax: round3(behaviourBackgroundMax),
      ...common,
      matchesSeen: sink,
    },
    'novelty.speedupVsScan': {
      value: round3(scanMs / queryMs),
      unit: 'x',
      note: 'brute-force scan time / LSH query time, same fingerprints, same matching rule',
      queryMs: round4(queryMs),
      scanMs: round4(scanMs),
      endToEndSpeedup: round3((fingerprintMs + scanMs) / (fingerprintMs + queryMs)),
      ...common,
    },
  };
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const round4 = (x: number): number => Math.round(x * 10000) / 10000;
