// POST /v1/sample: instances regenerated from their identities (with the hidden fields and the reference
// when revealed), or drawn by a seeded selection; quarantined and failing environments give per-item errors.
import { createHash } from 'node:crypto';
import { identityString } from '../contract/identity.js';
import { InstanceSchema, ReferenceSchema, describeIssues } from '../contract/schema.js';
import type { Misbehaviour } from '../library/quarantine.js';
import {
  selectEnvironments,
  SelectionError,
  type SelectableKind,
  type SelectedEnv,
  type Selection,
} from '../library/select.js';
import type { Call } from '../sandbox/protocol.js';
import type { EnvKind } from '../kinds/contract.js';
import { kindOf } from '../kinds/registry.js';
import type { EnvRecord } from '../library/contract.js';
import { confirmAndRecord, episodeFailure, withinDeadline } from './defence.js';
import { incidentParties, type Client } from './clients.js';
import { isUnrun } from './job-attribution.js';
import { SANDBOX_FN } from './dispatcher.js';
import { ServeError } from './options.js';
import { ScoreBoard, seededUniform } from './scores.js';
import type { InstanceIdentity, SampledItem } from './schemas.js';
import type { Service } from './service.js';
import { sampleEpisodic, type EpisodicEntry } from './sample-episodic.js';

export type { SampledItem } from './schemas.js';

/**
 * The items' starts (prompts, and with `reveal` the references), sampled in jobs shared with other requests as
 * `client`'s; a failing item is that client's incident (whatever drew its seed: the client sized the draw, V22-1;
 * the environment's own only where the service's own re-run meets it too: defence.ts), its defence awaited when the
 * request is in time.
 */
export async function sampleItems(
  service: Service,
  identities: InstanceIdentity[],
  reveal: boolean,
  client: Client,
): Promise<SampledItem[]> {
  const owner = client.key;
  const catalog = service.catalog;
  const resolved = identities.map((identity, i) => {
    const found = catalog.resolveAnyKind(identity);
    if ('error' in found)
      throw new ServeError(
        found.error.code === 'E_UNKNOWN_ENV' ? 404 : 400,
        found.error.code,
        `items[${i}]: ${found.error.message}`,
      );
    return { identity, record: found.record };
  });
  const out: SampledItem[] = new Array(resolved.length);
  const byModule = new Map<string, number[]>();
  const episodic = new Map<string, EpisodicEntry[]>();
  const misbehaved: Misbehaviour[] = [];
  resolved.forEach(({ identity, record }, i) => {
    const quarantined = service.defence.quarantined(record.hash);
    if (quarantined) {
      const id = { env: record.name, version: record.version, seed: identity.seed, level: identity.level };
      out[i] = {
        ...id,
        ground_truth: identityString(id),
        error: { code: 'E_QUARANTINED', message: `${record.name}@${record.version} is ${quarantined}` },
      };
      return;
    }
    if (kindOf(record.meta).rollouts)
      return void episodic.set(record.hash, [...(episodic.get(record.hash) ?? []), { index: i, identity, record }]);
    const list = byModule.get(record.hash);
    if (list) list.push(i);
    else byModule.set(record.hash, [i]);
  });
  let sandboxDown: string | null = null;
  const episodicDefences: Array<Promise<void>> = [];
  const work = Promise.all([
    ...[...episodic.values()].map(async (entries) => {
      const { defending } = await sampleEpisodic(service, entries, reveal, out, client);
      episodicDefences.push(defending);
    }),
    ...[...byModule.values()].map(async (indices) => {
      const record = resolved[indices[0] as number]!.record;
      const source = await service.source(record);
      const kind = kindOf(record.meta);
      if (kind.hostScored) {
        await sampleInHost(
          service,
          kind,
          source,
          record,
          indices.map((i) => ({ i, identity: resolved[i]!.identity })),
          reveal,
          out,
          owner,
        );
        return;
      }
      const calls = indices.map((i) => {
        const { seed, level } = resolved[i]!.identity;
        return { call: { op: 'episode', seed, level, responses: [], keepInstance: true } satisfies Call, chars: 0 };
      });
      const callResults = await service.dispatcher.submit(record.hash, source, calls, owner);
      callResults.forEach((result, k) => {
        const i = indices[k] as number;
        const { identity } = resolved[i]!;
        const id = { env: record.name, version: record.version, seed: identity.seed, level: identity.level };
        const base = { ...id, ground_truth: identityString(id) };
        const failed = episodeFailure(result, 0);
        if (failed) {
          if (!result.ok && result.fn === SANDBOX_FN) sandboxDown = result.message;
          else if (service.defence.isIncident(failed.code) && !isUnrun(result))
            misbehaved.push({
              record,
              seed: id.seed,
              level: id.level,
              ...failed,
              ...incidentParties(client),
            });
          out[i] = { ...base, error: { code: failed.code, message: `${failed.fn}: ${failed.message}` } };
          return;
        }
        const value = (result as { value?: unknown }).value as { instance?: unknown; reference?: unknown } | null;
        const instance = InstanceSchema.safeParse(value?.instance);
        if (!instance.success) {
          out[i] = { ...base, error: { code: 'E_INSTANCE', message: describeIssues(instance.error).join('; ') } };
          return;
        }
        const { prompt, ...hidden } = instance.data;
        if (!reveal) {
          out[i] = {
            env: id.env,
            version: id.version,
            seed: id.seed,
            level: id.level,
            prompt,
            ground_truth: base.ground_truth,
          };
          return;
        }
        const reference = ReferenceSchema.safeParse(value?.reference);
        if (!reference.success) {
          out[i] = { ...base, error: { code: 'E_REFERENCE', message: describeIssues(reference.error).join('; ') } };
          return;
        }
        out[i] = {
          env: id.env,
          version: id.version,
          seed: id.seed,
          level: id.level,
          prompt,
          ground_truth: base.ground_truth,
          hidden,
          reference: reference.data,
        };
      });
    }),
  ]);
  const inTime = await withinDeadline(work, service.options.requestTimeoutMs);
  if (sandboxDown !== null) throw new ServeError(503, 'E_SANDBOX', sandboxDown);
  const items = Array.from(out, (item, i) => {
    if (item) return item;
    const { identity, record } = resolved[i]!;
    const id = { env: record.name, version: record.version, seed: identity.seed, level: identity.level };
    return {
      ...id,
      ground_truth: identityString(id),
      error: {
        code: 'E_REQUEST_TIMEOUT',
        message: `not sampled within the request budget of ${service.options.requestTimeoutMs} ms`,
      },
    };
  });
  const defending = confirmAndRecord(service.defence, misbehaved, (m) => service.rerunAlone(m, owner));
  if (inTime) await Promise.all([defending, ...episodicDefences]);
  return items;
}

/**
 * Instances of a kind whose host composes what the policy sees (code: the prompt from the task): through its
 * runEpisodes.
 */
async function sampleInHost(
  service: Service,
  kind: EnvKind,
  source: string,
  record: EnvRecord,
  wanted: Array<{ i: number; identity: InstanceIdentity }>,
  reveal: boolean,
  out: SampledItem[],
  owner: string,
): Promise<void> {
  // In the client's turn, charged a budget per instance (sandbox-gate.ts).
  const run = await service.dispatcher.gate.run(owner, wanted.length, () =>
    kind.runEpisodes(
      service.pool,
      source,
      wanted.map(({ identity }) => ({ seed: identity.seed, level: identity.level })),
      { limits: { callTimeoutMs: service.options.callTimeoutMs } },
    ),
  );
  wanted.forEach(({ i, identity }, k) => {
    const id = { env: record.name, version: record.version, seed: identity.seed, level: identity.level };
    const e = run.episodes[k];
    if (!e?.ok) {
      out[i] = {
        ...id,
        ground_truth: identityString(id),
        error: { code: e?.code ?? 'E_PROTOCOL', message: `${e?.fn ?? 'call'}: ${e?.message ?? 'no result'}` },
      };
      return;
    }
    const { prompt, ...hidden } = e.instance;
    out[i] = reveal
      ? { ...id, prompt, ground_truth: identityString(id), hidden, reference: e.reference }
      : { ...id, prompt, ground_truth: identityString(id) };
  });
}

/** A /v1/sample selection: the request's `select` with its seed decided. */
export interface SampleSelect {
  env?: string | undefined;
  skills?: string[] | undefined;
  /** Only environments of this kind (default: every kind). */
  kind?: SelectableKind | undefined;
  levels?: [number, number] | undefined;
  /** 'auto': each draw's level is the one nearest a 0.5 pass rate in the service's score tallies (scores.ts). */
  level?: 'auto' | undefined;
  n: number;
  seed: number;
}

/**
 * Deterministic draws from library/select.ts's selection: the same seed and the same library give the same
 * identities. Environments whose levels stop below the range are skipped; nothing left to draw from is a 404.
 */
export function selectIdentities(service: Service, select: SampleSelect): InstanceIdentity[] {
  const selection: Selection = {
    ...(select.env === undefined ? {} : { envs: [{ name: select.env }] }),
    ...(select.skills ? { skills: select.skills } : {}),
    ...(select.kind ? { kind: select.kind } : {}),
    ...(select.levels ? { levels: { all: { lo: select.levels[0], hi: select.levels[1] }, byEnv: new Map() } } : {}),
  };
  let candidates: SelectedEnv[];
  try {
    candidates = selectEnvironments(service.catalog.all, selection, {
      labels: {
        env: 'select.env',
        skills: 'select.skills',
        levels: 'select.levels',
        selected: 'selected environments',
        kind: 'select.kind',
      },
      where: service.options.libraryDir,
      short: 'skip',
    });
  } catch (error) {
    if (error instanceof SelectionError)
      throw new ServeError(error.code === 'E_LEVEL_RANGE' ? 400 : 404, error.code, error.message);
    throw error;
  }
  const board = select.level === 'auto' ? (service.scores ?? new ScoreBoard('')) : null;
  return Array.from({ length: select.n }, (_, i) => {
    const digest = createHash('sha256').update(`envforge-select-v1\u0000${select.seed}\u0000${i}`).digest();
    const { record, levels } = candidates[digest.readUInt32LE(0) % candidates.length] as SelectedEnv;
    const level = board
      ? board.pickLevel(record.name, record.version, levels.lo, levels.hi, seededUniform(digest.readUInt32LE(12)))
      : levels.lo + (digest.readUInt32LE(4) % (levels.hi - levels.lo + 1));
    return { env: record.name, version: record.version, level, seed: digest.readUInt32LE(8) };
  });
}
