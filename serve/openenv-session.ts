// OpenEnv's environment interface over the service's episode sessions: reset, step (a tool call as {tool, args}
// or MCP's call_tool, MCP's list_tools, and end_episode), state, in OpenEnv's wire shapes. A result is exactly
// {observation, reward, done} (OpenEnv's ResetResponse/StepResponse forbid other keys): what envforge adds (the
// episode id, the turn, how it ended, feedback, an error) rides in observation.metadata, which OpenEnv's clients
// read. Rewards are terminal; end_episode is how a client that stops early gets its episode's score.
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import type { Tool } from '../contract/episodic.js';
import { actionOf } from './episode-routes.js';
import { parseEpisodeId } from './episode-journal.js';
import type { Client } from './clients.js';
import type { EpisodeSessions, StepResult } from './episodes.js';
import { ServeError } from './options.js';
import { parse, StepBody } from './schemas.js';

const Level = z.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1');
const Seed = z
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .min(0, 'must be non-negative')
  .max(Number.MAX_SAFE_INTEGER, 'must be a safe integer');
/**
 * OpenEnv's ResetRequest (seed, episode_id; extra fields allowed) with envforge's level and version among the extras.
 */
export const ResetData = z.looseObject(
  {
    seed: Seed.optional(),
    episode_id: z.string({ error: 'must be a string' }).max(255, 'must be at most 255 characters').optional(),
    level: Level.optional(),
    version: Level.optional(),
  },
  { error: 'reset data must be an object { seed?, episode_id?, level?, version? }' },
);
export type ResetOptions = z.infer<typeof ResetData>;

/**
 * What an OpenEnv action asks for: a tool call (MCP's call_tool form or envforge's {tool, args}), the tool list, or the
 * end.
 */
export type OpenEnvAction =
  | { type: 'call'; mcp: boolean; tool: string; args?: Record<string, unknown> }
  | { type: 'list_tools' }
  | { type: 'end_episode' };

/** OpenEnv's result of reset and step. */
export interface OpenEnvResult {
  observation: Record<string, unknown>;
  reward: number | null;
  done: boolean;
}

/** The forms an OpenEnv client sends as a step's action (a typed Action's model_dump carries `metadata` too). */
export function parseAction(raw: unknown): OpenEnvAction {
  const a = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
  if (a?.type === 'list_tools' || a?.type === 'end_episode') return { type: a.type };
  if (a?.type === 'call_tool') {
    const call = actionOf(
      parse(
        StepBody.omit({ turn: true }),
        { tool: a.tool_name, ...(a.arguments !== undefined ? { args: a.arguments } : {}) },
        ['action'],
      ),
    );
    return { type: 'call', mcp: true, ...call };
  }
  return { type: 'call', mcp: false, ...actionOf(parse(StepBody.omit({ turn: true }), raw, ['action'])) };
}

/** A tool as MCP lists it in an OpenEnv observation (input_schema, as OpenEnv's Tool model names it). */
export function listedTools(
  tools: readonly Tool[],
): Array<{ name: string; description: string; input_schema: Record<string, unknown> }> {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}

/**
 * An episode's reward as OpenEnv hands it to a trainer: its score once it ended, but none (null: OpenEnv's "no reward")
 * for one the environment failed (end "failed", its error in the metadata), which is never a learner's 0 (redteam-v23
 * V23-4; OpenEnv's clients keep only observation, reward and done).
 */
export function rewardOf(r: { done: boolean; score?: number; end?: string }): number | null {
  return r.done && r.end !== 'failed' ? (r.score ?? 0) : null;
}

/** The metadata of a step's answer: the episode, the turn and, once it ended, how. */
function stepMetadata(r: {
  episode: string;
  turn: number;
  done: boolean;
  end?: string;
  feedback?: string;
  error?: unknown;
}): Record<string, unknown> {
  return {
    episode_id: r.episode,
    turn: r.turn,
    ...(r.done
      ? {
          end: r.end,
          ...(r.feedback !== undefined ? { feedback: r.feedback } : {}),
          ...(r.error ? { error: r.error } : {}),
        }
      : {}),
  };
}

/**
 * A step's answer; a call_tool is answered as OpenEnv's CallToolObservation (tool_name, result with text content,
 * error).
 */
export function stepResult(r: StepResult, action: { mcp: boolean; tool: string }): OpenEnvResult {
  const base = { text: r.observation, turn: r.turn, metadata: stepMetadata(r) };
  const observation = action.mcp ? { ...base, tool_name: action.tool, result: callToolResult(r), error: null } : base;
  return { observation, reward: rewardOf(r), done: r.done };
}

/**
 * MCP's CallToolResult for a step: its text as content (and as data, which OpenEnv's MCP client returns), the episode's
 * progress as structured content.
 */
export function callToolResult(r: StepResult): Record<string, unknown> {
  const progress = { turn: r.turn, done: r.done, ...(r.done ? { reward: rewardOf(r), end: r.end } : {}) };
  return {
    content: [{ type: 'text', text: r.observation }],
    structured_content: progress,
    data: r.observation,
    is_error: false,
  };
}

export class OpenEnvSessions {
  /**
   * `client`: who plays (serve/clients.ts); the registered instance has none, and each request plays through
   * `as(client)`.
   */
  constructor(
    private readonly sessions: EpisodeSessions,
    private readonly client: Client | null = null,
  ) {}

  /** The same sessions, played as `client` (its slots, its incidents). */
  as(client: Client): OpenEnvSessions {
    return new OpenEnvSessions(this.sessions, client);
  }

  /** Who plays through this instance. */
  get who(): Client {
    if (!this.client) throw new Error('OpenEnvSessions: play through as(client)');
    return this.client;
  }

  /** The tools of an environment's served version (or of the episode being played). */
  tools(env: string, version?: number): Tool[] {
    return this.sessions.resolve({ env, version, seed: 0, level: 1 }).meta.tools;
  }

  /**
   * reset: resumes an episode this service issued (episode_id), else starts one (seed drawn when absent, level 1 by
   * default).
   */
  async reset(env: string, data: ResetOptions): Promise<OpenEnvResult> {
    if (data.episode_id !== undefined && parseEpisodeId(data.episode_id)) {
      const s = await this.owned(env, data.episode_id);
      const last = s.turns[s.turns.length - 1];
      const metadata = {
        episode_id: s.episode,
        resumed: true,
        env: s.env,
        version: s.version,
        seed: s.seed,
        level: s.level,
        prompt: s.prompt,
        ...(s.done ? { end: s.end } : {}),
      };
      return {
        observation: {
          text: last ? last.observation : s.prompt,
          prompt: s.prompt,
          tools: listedTools(s.tools),
          max_turns: s.maxTurns,
          turn: s.turn,
          metadata,
        },
        reward: rewardOf(s),
        done: s.done,
      };
    }
    const s = await this.sessions.create(
      { env, version: data.version, seed: data.seed ?? randomInt(0, 2 ** 31), level: data.level ?? 1 },
      this.who,
    );
    const metadata = {
      episode_id: s.id,
      ...s.identity,
      prompt: s.prompt,
      ...(data.episode_id !== undefined ? { client_episode_id: data.episode_id } : {}),
    };
    return {
      observation: {
        text: s.prompt,
        prompt: s.prompt,
        tools: listedTools(s.meta.tools),
        max_turns: s.meta.maxTurns,
        turn: 0,
        metadata,
      },
      reward: null,
      done: false,
    };
  }

  /** One action of an episode (list_tools needs none). */
  async step(env: string, episode: string | null, action: OpenEnvAction, turn?: number): Promise<OpenEnvResult> {
    if (action.type === 'list_tools') {
      const tools = episode === null ? this.tools(env) : (await this.owned(env, episode)).tools;
      return {
        observation: { tools: listedTools(tools), metadata: episode === null ? {} : { episode_id: episode } },
        reward: null,
        done: false,
      };
    }
    if (episode === null)
      throw new ServeError(
        400,
        'E_BAD_REQUEST',
        `send a reset first: there is no episode to ${action.type === 'end_episode' ? 'end' : 'step'}`,
      );
    await this.owned(env, episode);
    if (action.type === 'end_episode') return this.end(env, episode);
    return stepResult(
      await this.sessions.step(
        episode,
        action.args === undefined ? { tool: action.tool } : { tool: action.tool, args: action.args },
        turn,
        this.who,
      ),
      action,
    );
  }

  /** Ends an episode ("truncated" if it was still running) and answers its score. */
  async end(env: string, episode: string): Promise<OpenEnvResult> {
    await this.owned(env, episode);
    const r = await this.sessions.end(episode, this.who);
    return {
      observation: { text: '', turn: r.turn, metadata: stepMetadata({ ...r, episode }) },
      reward: rewardOf(r),
      done: true,
    };
  }

  /**
   * A one-step episode, as OpenEnv's stateless HTTP step plays a fresh environment per request: never journaled
   * (its answer carries its outcome and nothing resumes it), so such requests leave no file however many come.
   */
  async once(env: string, action: OpenEnvAction, options: ResetOptions): Promise<OpenEnvResult> {
    if (action.type !== 'call') return this.step(env, null, action);
    const s = await this.sessions.create(
      { env, version: options.version, seed: options.seed ?? randomInt(0, 2 ** 31), level: options.level ?? 1 },
      this.who,
      undefined,
      true,
    );
    const r = await this.sessions.step(
      s.id,
      action.args === undefined ? { tool: action.tool } : { tool: action.tool, args: action.args },
      undefined,
      this.who,
    );
    if (r.done) return stepResult(r, action);
    const ended = await this.end(env, s.id);
    return {
      ...stepResult(
        {
          ...r,
          done: true,
          score: ended.reward ?? 0,
          end: String((ended.observation.metadata as { end?: string }).end),
          error: (ended.observation.metadata as { error?: { code: string; message: string } }).error,
        },
        action,
      ),
    };
  }

  async state(env: string, episode: string | null): Promise<Record<string, unknown>> {
    if (episode === null) return { episode_id: null, step_count: 0, env };
    const s = await this.owned(env, episode);
    return {
      episode_id: s.episode,
      step_count: s.turn,
      env: s.env,
      version: s.version,
      seed: s.seed,
      level: s.level,
      done: s.done,
      max_turns: s.maxTurns,
      ...(s.done ? { end: s.end } : {}),
    };
  }

  private async owned(env: string, episode: string) {
    const s = await this.sessions.get(episode, this.who);
    if (s.env !== env)
      throw new ServeError(
        400,
        'E_BAD_REQUEST',
        `episode ${episode.slice(0, 120)} is an episode of ${s.env}, not ${env}`,
      );
    return s;
  }
}
