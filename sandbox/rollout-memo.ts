// One validation's memo of rollouts: a request for an episode already played (same seed, level, policy,
// resumed state) is served from that result, trimmed to the outputs asked for, so checks that replay the same
// logs play each once; only successful rollouts are served, a failure is always played again.
import type { LoadInfo } from './protocol.js';
import {
  withRolloutServer,
  type Rollout,
  type RolloutRequest,
  type RolloutResult,
  type RolloutRun,
  type RolloutServer,
} from './rollouts.js';

/** The outputs a request asks for besides the episode itself; a result with more serves a request with fewer. */
const OUTPUTS = ['observations', 'hashes', 'keepState', 'changes'] as const;
type Outputs = number;

const outputsOf = (r: RolloutRequest): Outputs =>
  OUTPUTS.reduce((bits, name, i) => (r[name] === true ? bits | (1 << i) : bits), 0);
/**
 * What decides the episode: a module's rollout is a function of these (determinism is its own stage's check), under
 * the rollouts' shape and limits (the `setting` its entries are kept under: a looser limit's success does not answer
 * a tighter one's request).
 */
const keyOf = (r: RolloutRequest): string =>
  JSON.stringify([r.seed, r.level, r.policy, r.from ?? null, r.scoreAtEnd === true]);

/** A result of a request with more outputs, as a fresh run of `request` returns it (the same fields, in order). */
function trimmed(result: Rollout, request: RolloutRequest): Rollout {
  const out: Partial<Rollout> & Record<string, unknown> = { ...result };
  if (request.observations !== true) delete out.observations;
  if (request.hashes !== true) delete out.hashes;
  if (request.changes !== true) delete out.changes;
  if (request.keepState !== true) {
    delete out.state;
    delete out.stateText;
  }
  return out as Rollout;
}

interface Entry {
  outputs: Outputs;
  result: Promise<RolloutResult>;
}

export class RolloutMemo implements RolloutServer {
  /** By setting, then by request key: the setting (the tools' JSON among it) is not written into every key. */
  private readonly settings = new Map<string, Map<string, Entry[]>>();
  private load: LoadInfo | null = null;
  /** Requests seen, served from the memo, and played in the sandbox. */
  readonly counts = { requests: 0, served: 0, played: 0 };

  /** The memo serves one module's rollouts only. */
  constructor(readonly source: string) {}

  /**
   * The requests' results in order: served where an equal episode was played (or is in flight) in the same `setting`,
   * the rest run by `play`.
   */
  async serve(
    requests: readonly RolloutRequest[],
    play: (misses: RolloutRequest[]) => Promise<RolloutRun>,
    setting: string,
  ): Promise<RolloutRun> {
    const started = performance.now();
    const served = new Map<number, Promise<RolloutResult>>();
    const misses: number[] = [];
    const entries = this.settings.get(setting) ?? new Map<string, Entry[]>();
    this.settings.set(setting, entries);
    const keys = requests.map((r) => keyOf(r));
    const settle: Array<(r: RolloutResult) => void> = [];
    const fail: Array<(e: unknown) => void> = [];
    requests.forEach((request, i) => {
      const key = keys[i] as string;
      const outputs = outputsOf(request);
      const list = entries.get(key) ?? [];
      const hit = list.find((e) => (e.outputs & outputs) === outputs);
      if (hit) {
        served.set(i, hit.result);
        return;
      }
      const result = new Promise<RolloutResult>((resolve, reject) => {
        settle.push(resolve);
        fail.push(reject);
      });
      result.catch(() => undefined);
      list.push({ outputs, result });
      entries.set(key, list);
      misses.push(i);
    });
    this.counts.requests += requests.length;
    const results: RolloutResult[] = new Array(requests.length);
    if (misses.length > 0) {
      try {
        const run = await play(misses.map((i) => requests[i] as RolloutRequest));
        this.load = run.load;
        misses.forEach((i, k) => {
          results[i] = run.rollouts[k] as RolloutResult;
          settle[k]?.(results[i] as RolloutResult);
        });
        this.counts.played += misses.length;
      } catch (error) {
        for (const reject of fail) reject(error);
        for (const i of misses) entries.delete(keys[i] as string);
        throw error;
      }
    }
    // Served results; a failed one (a crash, a timeout: maybe the machine's) is played again for this request.
    const again: number[] = [];
    for (const [i, pending] of served) {
      const result = await pending.catch(() => null);
      if (result?.ok) results[i] = trimmed(result, requests[i] as RolloutRequest);
      else again.push(i);
    }
    this.counts.served += served.size - again.length;
    if (again.length > 0) {
      const run = await play(again.map((i) => requests[i] as RolloutRequest));
      this.load = run.load;
      again.forEach((i, k) => {
        results[i] = run.rollouts[k] as RolloutResult;
      });
      this.counts.played += again.length;
    }
    return { load: this.load as LoadInfo, rollouts: results, wallMs: performance.now() - started };
  }
}

/** Runs `work` with `memo` serving every rollout of its module that it (or anything it awaits) asks for. */
export function withRolloutMemo<T>(memo: RolloutMemo, work: () => Promise<T>): Promise<T> {
  return withRolloutServer(memo, work);
}
