// The episodic (contract v2) side of `envforge sample` and `envforge play`: the prompt and tools of an
// episode, a reference rollout turn by turn, and an interactive session whose state the host holds.
import { createInterface } from 'node:readline';
import type { EpisodicMeta, Tool } from '../contract/episodic.js';
import { schemaText } from '../kinds/tool-text.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { runRollouts, type Rollout, type RolloutRequest } from '../sandbox/rollouts.js';
import { block, CliFailure, type Io, json, labelled, line, lines, type Printed } from './io.js';

async function one(pool: SandboxPool, source: string, meta: EpisodicMeta, request: RolloutRequest): Promise<Rollout> {
  const [r] = (await runRollouts(pool, source, meta, [request])).rollouts;
  if (!r?.ok)
    throw new CliFailure(
      `seed ${request.seed} level ${request.level}: ${r?.code ?? 'E_PROTOCOL'} in ${r?.fn ?? 'call'}: ` +
        `${r?.message ?? 'no result'}`,
    );
  return r;
}

/** `sample` for an episodic environment: prompt and tools; with reveal, the reference rollout (act) turn by turn. */
export async function sampleEpisodic(
  pool: SandboxPool,
  source: string,
  meta: EpisodicMeta,
  o: { seed: number; n: number; level: number; reveal: boolean; json: boolean },
  io: Io,
): Promise<void> {
  const requests = Array.from({ length: o.n }, (_, i) => ({
    seed: o.seed + i,
    level: o.level,
    policy: { type: 'act' as const },
    observations: true,
  }));
  const { rollouts } = await runRollouts(pool, source, meta, requests);
  let failed = 0;
  for (const r of rollouts) {
    if (!r.ok) {
      failed++;
      if (o.json)
        io.out(
          json({
            env: meta.name,
            seed: r.seed,
            level: r.level,
            error: { code: r.code, fn: r.fn, message: r.message },
          }),
        );
      else io.err(line`seed ${r.seed} level ${r.level}: ${r.code} in ${r.fn}: ${r.message}`);
      continue;
    }
    const turns = r.actions.map((action, i) => ({ turn: i + 1, action, observation: r.observations?.[i] ?? '' }));
    if (o.json) {
      io.out(
        json({
          env: meta.name,
          kind: 'episodic',
          seed: r.seed,
          level: r.level,
          prompt: r.prompt,
          tools: meta.tools,
          maxTurns: meta.maxTurns,
          ...(o.reveal
            ? { reference: { turns, end: r.end, score: r.score, ...(r.feedback ? { feedback: r.feedback } : {}) } }
            : {}),
        }),
      );
      continue;
    }
    io.out(line`── ${meta.name}  seed=${r.seed}  level=${r.level}  (episodic, at most ${meta.maxTurns} turns) ──`);
    io.out(block(r.prompt ?? ''));
    io.out(line`\n[tools]`);
    io.out(toolLines(meta.tools));
    if (o.reveal) {
      io.out(line`\n[reference rollout]`);
      for (const t of turns) {
        io.out(line`${t.turn}. ${actionText(t.action)}`);
        io.out(labelled(line`   → `, t.observation, '     '));
      }
      io.out(line`[end] ${r.end} after ${r.turns} turns, score ${r.score}${r.feedback ? ` (${r.feedback})` : ''}`);
    }
    io.out(line``);
  }
  if (failed > 0) throw new CliFailure(`${failed} of ${rollouts.length} episodes failed`);
}

/** The tools as lines: each call shape on a line of its own, its description a block under it. */
function toolLines(tools: readonly Tool[]): Printed {
  return lines(tools.map((t) => lines([line`${t.name} ${schemaText(t.parameters)}`, block(t.description, '    ')])));
}

function actionText(action: unknown): string {
  const a = action as { tool?: unknown; args?: unknown };
  return `${String(a?.tool)} ${JSON.stringify(a?.args ?? {})}`;
}

/** One typed line as an action: `tool {"json":"args"}` or `tool`; null for an empty line or `end`. */
export function parseActionLine(line: string): { action: unknown } | { error: string } | null {
  const text = line.trim();
  if (text === '' || text === 'end' || text === 'quit') return null;
  const space = text.search(/\s/);
  const tool = space < 0 ? text : text.slice(0, space);
  const rest = space < 0 ? '' : text.slice(space).trim();
  if (rest === '') return { action: { tool, args: {} } };
  try {
    return { action: { tool, args: JSON.parse(rest) as unknown } };
  } catch {
    return { error: `the arguments after "${tool}" are not JSON: ${rest.slice(0, 80)}` };
  }
}

/**
 * `envforge play`: reset, then one typed tool call per line through step (the host holds the state) until the episode
 * ends.
 */
export async function playEpisode(
  pool: SandboxPool,
  source: string,
  meta: EpisodicMeta,
  o: { seed: number; level: number; json: boolean },
  input: NodeJS.ReadableStream,
  io: Io,
): Promise<void> {
  const base = { seed: o.seed, level: o.level, keepState: true, observations: true };
  let r = await one(pool, source, meta, { ...base, policy: { type: 'replay', actions: [] } });
  const show = (event: Record<string, unknown>, text: Printed) => io.out(o.json ? json(event) : text);
  show(
    {
      event: 'reset',
      env: meta.name,
      seed: o.seed,
      level: o.level,
      prompt: r.prompt,
      tools: meta.tools,
      maxTurns: meta.maxTurns,
    },
    lines([
      line`── ${meta.name}  seed=${o.seed}  level=${o.level} ──`,
      block(r.prompt ?? ''),
      line`\n[tools]`,
      toolLines(meta.tools),
      line`\nType one call per line: tool {"arg": value}; an empty line or "end" ends the episode.`,
    ]),
  );
  let end: string = 'no-action';
  const typed = createInterface({ input, terminal: false });
  for await (const text of typed) {
    const parsed = parseActionLine(text);
    if (parsed === null) break;
    if ('error' in parsed) {
      show({ event: 'input-error', message: parsed.error }, line`! ${parsed.error}`);
      continue;
    }
    r = await one(pool, source, meta, {
      ...base,
      policy: { type: 'replay', actions: [parsed.action] },
      from: { state: r.stateText ?? 'null', turn: r.turns, errors: r.errors },
    });
    show(
      { event: 'step', turn: r.turns, action: parsed.action, observation: r.observations?.[0] ?? '' },
      labelled(line`${r.turns}. `, r.observations?.[0] ?? '', '   '),
    );
    if (r.end !== 'no-action') {
      end = r.end;
      break;
    }
  }
  typed.close();
  show(
    { event: 'end', end, turns: r.turns, score: r.score, ...(r.feedback ? { feedback: r.feedback } : {}) },
    line`[end] ${end} after ${r.turns} turns, score ${r.score}${r.feedback ? ` (${r.feedback})` : ''}`,
  );
}
