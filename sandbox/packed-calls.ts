// Calls packed for the pipe to a worker: episodes' seeds and levels as Float64Arrays, which the V8 serialiser
// writes as raw bytes, where an array of call objects costs ≈0.5 µs an item to write on the supervisor's
// one thread and more to read; rollouts' shared tools text once per job. Only calls that carry nothing else
// are packed, so unpacking gives the worker calls it cannot tell from the originals.
import type { Call, JobMessage, PackedCalls, RolloutSpec } from './protocol.js';

/** Whether the worker reads nothing of the call but its seed, level and responses. */
function plainEpisode(call: Call): boolean {
  return (
    call.op === 'episode' &&
    typeof call.seed === 'number' &&
    typeof call.level === 'number' &&
    call.rollout === undefined &&
    call.keepInstance === undefined &&
    (call.responses === undefined || Array.isArray(call.responses))
  );
}

/** The calls packed, or null when some call carries more than a plain episode (they then cross as objects). */
export function packCalls(calls: readonly Call[]): PackedCalls | null {
  const seeds = new Float64Array(calls.length);
  const levels = new Float64Array(calls.length);
  let withResponses = false;
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as Call;
    if (!plainEpisode(call)) return null;
    seeds[i] = call.seed;
    levels[i] = call.level;
    if (call.responses !== undefined && call.responses.length > 0) withResponses = true;
  }
  return withResponses ? { seeds, levels, responses: calls.map((c) => c.responses) } : { seeds, levels };
}

/**
 * A job's calls as they go down the pipe: packed when they can be (once per job: `job.packed` keeps it), else as they
 * are.
 */
export function callsForPipe(job: {
  calls: Call[];
  packed?: PackedCalls | null;
}): Pick<JobMessage, 'calls' | 'packed' | 'tools'> {
  if (job.packed === undefined) job.packed = packCalls(job.calls);
  return job.packed ? { calls: [], packed: job.packed } : sharedTools(job.calls);
}

/**
 * Rollouts of one module carry the same tools text (a few KB, more than a served step's state): the job
 * sends it once and each call an empty string, which the worker fills in again (withTools).
 */
function sharedTools(calls: Call[]): Pick<JobMessage, 'calls' | 'tools'> {
  const tools = calls[0]?.rollout?.tools;
  if (calls.length < 2 || tools === undefined || !calls.every((c) => c.rollout?.tools === tools)) return { calls };
  return { calls: calls.map((c) => ({ ...c, rollout: { ...(c.rollout as RolloutSpec), tools: '' } })), tools };
}

/** A job's calls as they were before the pipe shared their tools text. */
export function withTools(calls: Call[], tools: string | undefined): Call[] {
  return tools === undefined ? calls : calls.map((c) => (c.rollout ? { ...c, rollout: { ...c.rollout, tools } } : c));
}

/** The calls as the worker runs them. */
export function unpackCalls(packed: PackedCalls): Call[] {
  const { seeds, levels, responses } = packed;
  const calls = new Array<Call>(seeds.length);
  for (let i = 0; i < seeds.length; i++) {
    const r = responses?.[i];
    calls[i] =
      r === undefined
        ? { op: 'episode', seed: seeds[i] as number, level: levels[i] as number }
        : { op: 'episode', seed: seeds[i] as number, level: levels[i] as number, responses: r };
  }
  return calls;
}
