// An episode the environment failed (end "failed": a throw, a timeout) reaches an OpenEnv client with no reward (null),
// never as a learner's 0: OpenEnv's clients keep only observation, reward and done (redteam-v23 V23-4, TRAINER-CLIENTS
// O6), so the reward itself must say it. A learner's 0 (truncated, errors) stays 0.
import { describe, expect, it } from 'vitest';
import type { StepResult } from '../serve/episode-session.js';
import { callToolResult, rewardOf, stepResult } from '../serve/openenv-session.js';

const step = (over: Partial<StepResult>): StepResult => ({
  episode: 'e',
  turn: 2,
  observation: 'o',
  done: true,
  score: 0,
  ...over,
});
const failed = step({ end: 'failed', error: { code: 'E_THROWN', message: 'step: boom' } });

describe("OpenEnv's reward of an ended episode", () => {
  it("is none for the environment's failure, its error in the metadata", () => {
    for (const mcp of [false, true]) {
      const r = stepResult(failed, { mcp, tool: 't' });
      expect(r).toMatchObject({ reward: null, done: true });
      expect(r.observation.metadata).toMatchObject({ end: 'failed', error: { code: 'E_THROWN' } });
    }
    expect(callToolResult(failed).structured_content).toEqual({ turn: 2, done: true, reward: null, end: 'failed' });
  });

  it("is the score for a learner's end, a 0 included, and none while the episode goes on", () => {
    expect(rewardOf(step({ end: 'truncated' }))).toBe(0);
    expect(rewardOf(step({ end: 'errors' }))).toBe(0);
    expect(rewardOf(step({ end: 'done', score: 1 }))).toBe(1);
    expect(rewardOf(step({ done: false, end: undefined, score: undefined }))).toBeNull();
    expect(stepResult(step({ end: 'done', score: 0.5 }), { mcp: false, tool: 't' }).reward).toBe(0.5);
  });
});
