// A scripted LLM for batch tests: it answers the architect with fixed specs, the generator and repair
// with modules chosen per spec, and the reviewer with a passing checklist, by reading each prompt.
import { readFileSync } from 'node:fs';
import { reply, type FakeReply } from '../../agents/llm/fake.js';
import type { WireRequest } from '../../agents/llm/contract.js';
import { REVIEW_CHECKS, type EnvSpec } from '../../agents/spec.js';

export const fixture = (file: string): string =>
  readFileSync(new URL(`../fixtures/candidates/${file}`, import.meta.url), 'utf8');
/** A module whose verifier pays for anything: the validator rejects it (E_ACCEPTS_EMPTY and more). */
export const alwaysOne = (source: string): string =>
  source.replace(
    /export function verify\(instance, response\) \{/,
    'export function verify(instance, response) { return 1;',
  );
const fenced = (source: string): FakeReply => reply.text(`\`\`\`js\n${source}\n\`\`\``);

export const spec = (name: string): EnvSpec => ({
  name,
  title: `The ${name} task`,
  skills: ['arithmetic'],
  taskIdea: `A distinctive task called ${name} with its own rules and inputs.`,
  answerFormat: 'One integer as <answer>N</answer>.',
  difficultyScaling: 'Inputs grow with the level.',
  whyNew: 'Nothing in the library trains it.',
});

export interface ScriptPlan {
  specs: EnvSpec[];
  /** Per spec name: what the generator writes first, then what each repair writes. */
  modules: Record<string, Array<string | FakeReply>>;
}

export function batchScript(plan: ScriptPlan): {
  script: (request: WireRequest) => FakeReply;
  calls: Record<string, number>;
} {
  const calls: Record<string, number> = { architect: 0, generator: 0, repair: 0, reviewer: 0 };
  const repairs = new Map<string, number>();
  // The generator always gets the first module; the n-th repair of a spec gets module n (so a resumed
  // batch, with a fresh script, sees the same answers as an uninterrupted one).
  const take = (name: string, repairing: boolean): FakeReply => {
    const n = repairing ? (repairs.get(name) ?? 0) + 1 : 0;
    if (repairing) repairs.set(name, n);
    const item = plan.modules[name]?.[Math.min(n, (plan.modules[name]?.length ?? 1) - 1)];
    if (item === undefined) return reply.text('I have no module for that.');
    return typeof item === 'string' ? fenced(item) : item;
  };
  let architectRound = 0;
  const script = (request: WireRequest): FakeReply => {
    const text = request.messages.map((m) => m.content).join('\n');
    if (request.schema?.name === 'architect_specs' || (text.includes('"specs"') && text.includes('architect'))) {
      calls.architect = (calls.architect ?? 0) + 1;
      // The plan's specs once; later rounds propose nothing new (repeats are dropped as duplicates).
      return reply.json({ specs: architectRound++ === 0 ? plan.specs : plan.specs.slice(0, 1) });
    }
    if (request.schema?.name === 'review_checklist') {
      calls.reviewer = (calls.reviewer ?? 0) + 1;
      return reply.json({
        checks: Object.fromEntries(REVIEW_CHECKS.map((check) => [check, { ok: true, note: 'fine' }])),
      });
    }
    const repairing = text.includes('## The rejected module');
    calls[repairing ? 'repair' : 'generator'] = (calls[repairing ? 'repair' : 'generator'] ?? 0) + 1;
    const name = plan.specs
      .map((s) => s.name)
      .find((n) => text.includes(`spec-marker:${n}`) || text.includes(`The ${n} task`));
    return name ? take(name, repairing) : reply.text('no idea which spec this is');
  };
  return { script, calls };
}
