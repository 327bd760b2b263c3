// Episodic specs and stand-in replies for tests of the LLM author's episodic path: a spec with its world,
// tools, policy and goal, the v2 reviewer's passing checklist, and a fixture module broken in one place.
import { readFileSync } from 'node:fs';
import { reply, type FakeReply } from '../../agents/llm/fake.js';
import { EPISODIC_REVIEW_CHECKS, type EnvSpec } from '../../agents/spec.js';

export const episodicFixture = (file: string): string =>
  readFileSync(new URL(`../fixtures/episodic/${file}`, import.meta.url), 'utf8');

/** An episodic spec whose tools are `tools` (the last one finishes), each taking an `id` except the first. */
export function episodicSpec(name: string, tools: readonly string[], over: Partial<EnvSpec> = {}): EnvSpec {
  return {
    kind: 'episodic',
    name,
    title: `The ${name} desk`,
    skills: ['tool-use', 'policy-following'],
    taskIdea: `An agent works through the ${name} queue with tools, applying a stated policy to each record.`,
    answerFormat: `One tool call per turn; ${tools.at(-1)} ends the episode.`,
    difficultyScaling: 'Level 1 has two records and one rule; the top level has ten records and four rules.',
    whyNew: 'No episodic environment trains this policy.',
    episodic: {
      world: `A queue of ${name} records with ids like AB-1234, their fields and the rules in force.`,
      tools: tools.map((tool, i) => ({
        name: tool,
        description: `The ${tool.replaceAll('_', ' ')} tool.`,
        parameters:
          i === 0 || i === tools.length - 1
            ? []
            : [{ name: 'id', type: 'string' as const, description: 'A record id such as AB-1234.' }],
      })),
      policy: 'Apply the stated rules to every record; never touch a record the rules exclude.',
      goal: 'Every record ends in the state the policy gives it, and the finishing tool was called.',
      finishTool: tools.at(-1) as string,
    },
    ...over,
  };
}

/** The v2 reviewer's checklist, every check passing. */
export const episodicReviewPasses = (): FakeReply =>
  reply.json({ checks: Object.fromEntries(EPISODIC_REVIEW_CHECKS.map((c) => [c, { ok: true, note: 'fine' }])) });

/**
 * A fixture whose score forgets the finished flag: the validator's `incomplete` probe (the reference minus its
 * finishing call) is paid.
 */
export function withoutFinishCheck(source: string, flagLine: RegExp): string {
  if (!flagLine.test(source)) throw new Error(`no line matching ${flagLine} to remove`);
  return source.replace(flagLine, '');
}
