// The variable parts of the repair and reviewer prompts, as text: the validator's stages and problems (an
// episodic hack probe as the episode it played), and the reviewer's samples (an episodic sample as the
// reference's actions with the observations the agent got back), each clipped to a bounded length.
import type { SampleLimits } from '../kinds/contract.js';
import { CODES } from '../contract/codes.js';
import type { ValidationReport } from '../validators/report.js';
import { fence } from './prompt-files.js';

export type ReportPart = Pick<ValidationReport, 'problems'> & Partial<Pick<ValidationReport, 'stages'>>;

/** How much of a validator report a repair prompt shows. */
export interface ProblemLimits {
  problems: number;
  evidenceChars: number;
}

export function describeStages(stages: NonNullable<ReportPart['stages']>): string {
  if (stages.length === 0) return '(no stage summary)';
  const failed = (n: number) => `FAILED (${n} problem${n === 1 ? '' : 's'})`;
  const state = (s: (typeof stages)[number]) =>
    s.skipped !== undefined ? `not run (${s.skipped})` : s.ok ? 'passed' : failed(s.problems.length);
  return stages.map((s) => `- ${s.stage}: ${state(s)}`).join('\n');
}

export function describeProblems(problems: ReportPart['problems'], limits: ProblemLimits): string {
  if (problems.length === 0) return '(the report lists no problems)';
  const lines = problems.slice(0, limits.problems).map((p, i) => {
    const parts = [
      `${i + 1}. [${p.stage}] ${p.code}: ${CODES[p.code] ?? 'no description'}`,
      `   message: ${clipLine(p.message, limits.evidenceChars)}`,
    ];
    if (p.evidence !== undefined) parts.push(...describeEvidence(p.evidence, limits.evidenceChars));
    return parts.join('\n');
  });
  if (problems.length > limits.problems)
    lines.push(`… and ${problems.length - limits.problems} more problems not shown.`);
  return lines.join('\n');
}

/** What an episodic hack probe reports (validators/episodic/hack.ts): the probe and the action log it replayed. */
interface ProbeEvidence {
  family: string;
  seed: number;
  level: number;
  score: number | null;
  end: string | null;
  actions: string;
}

const isProbeEvidence = (e: unknown): e is ProbeEvidence =>
  e !== null &&
  typeof e === 'object' &&
  typeof (e as ProbeEvidence).family === 'string' &&
  typeof (e as ProbeEvidence).actions === 'string';

/**
 * Evidence lines: a probe as the episode it played (which probe, where, how it ended, its actions); anything else as
 * JSON.
 */
function describeEvidence(evidence: unknown, max: number): string[] {
  if (!isProbeEvidence(evidence)) return [`   evidence: ${evidenceJson(evidence, max)}`];
  const e = evidence;
  const outcome =
    e.score === null
      ? 'the rollout failed before a score'
      : `score ${e.score}, the episode ended by ${e.end ?? 'an unknown cause'}`;
  return [
    `   failed probe: ${e.family} (seed ${e.seed}, level ${e.level}): ${outcome}`,
    `   the probe's action log (its first actions): ${clipLine(e.actions, max)}`,
  ];
}

const clipLine = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;

/** Evidence as one line of JSON, cut to a bounded length (it may quote megabyte responses). */
function evidenceJson(evidence: unknown, max: number): string {
  let json: string;
  try {
    json = JSON.stringify(evidence) ?? 'null';
  } catch {
    json = '"(evidence is not JSON-serialisable)"';
  }
  return clipLine(json, max);
}

/** One sampled instance as the reviewer sees it: what the policy sees and what a perfect answer is. */
export interface ReviewSample {
  seed: number;
  level: number;
  prompt: string;
  /** Single-turn: the reference response. Episodic: the reference's action log as JSON. */
  reference: string;
  /** Episodic: the observation the agent got back after each reference action, in order. */
  observations?: readonly string[];
}

/** How much of the samples a reviewer prompt shows: each kind's plug says (kinds/contract.ts). */
export type { SampleLimits };

/**
 * At most `count` samples spread over the list (it runs from level 1 to the top level): the first and the last always
 * among them.
 */
function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  if (count <= 1) return items.slice(-count);
  return [...new Set(Array.from({ length: count }, (_, i) => Math.round((i * (items.length - 1)) / (count - 1))))].map(
    (i) => items[i] as T,
  );
}

export function describeSamples(samples: readonly ReviewSample[], episodic: boolean, limits: SampleLimits): string {
  if (samples.length === 0) return '(no samples)';
  return spread(samples, limits.samples)
    .map((s, i) => {
      const head = [
        `### Sample ${i + 1} (level ${s.level}, seed ${s.seed})`,
        'Prompt:',
        fence(clip(s.prompt, limits.chars), 'text'),
      ];
      if (!episodic) return [...head, 'Reference response:', fence(clip(s.reference, limits.chars), 'text')].join('\n');
      if (!s.observations)
        return [
          ...head,
          'Reference action log (what act() did, as JSON):',
          fence(clip(s.reference, limits.chars), 'text'),
        ].join('\n');
      return [
        ...head,
        'Reference episode (each action, then the observation it got):',
        fence(clip(transcript(s.reference, s.observations, limits.observationChars), limits.transcriptChars), 'text'),
      ].join('\n');
    })
    .join('\n\n');
}

/** Actions and observations interleaved, one numbered turn per action; an unreadable action log is shown as it is. */
function transcript(reference: string, observations: readonly string[], observationChars: number): string {
  let actions: unknown;
  try {
    actions = JSON.parse(reference);
  } catch {
    return reference;
  }
  if (!Array.isArray(actions)) return reference;
  return actions
    .map((action, i) => {
      const { tool, args } = (action ?? {}) as { tool?: unknown; args?: unknown };
      const call = `${String(tool)}(${JSON.stringify(args ?? {})})`;
      const seen = observations[i];
      const shown =
        seen === undefined ? '(no observation)' : clipLine(seen.replace(/\s*\n\s*/g, ' | '), observationChars);
      return `${i + 1}. ${call}\n   -> ${shown}`;
    })
    .join('\n');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}
