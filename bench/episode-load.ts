// The load the episode-session benchmark offers a reward service: node:http keep-alive clients on loopback
// playing reference rollouts, closed loop (each session steps as soon as it has its answer), paced (a think
// time between steps), replayed (each turn scored by replaying the log so far), or many sessions held open.
import http from 'node:http';

/** A reference episode: its identity and the actions that finish it with score 1. */
export interface Plan {
  env: string;
  seed: number;
  level: number;
  actions: unknown[];
}

export interface Reply {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Requests to one server over keep-alive connections: on 2 loaded cores fetch() tops out near 800 requests/s, node:http
 * near 4,400.
 */
export class Client {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 8_192 });
  private readonly host: string;
  private readonly port: string;

  constructor(url: string) {
    ({ hostname: this.host, port: this.port } = new URL(url));
  }

  send(method: string, path: string, body?: unknown): Promise<Reply> {
    const data = body === undefined ? '' : JSON.stringify(body);
    const headers =
      body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) };
    return new Promise((resolve, reject) => {
      const request = http.request(
        { host: this.host, port: this.port, path, method, agent: this.agent, headers },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
            }),
          );
        },
      );
      request.on('error', reject);
      request.end(data);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

const failed: Reply = { status: 0, body: {} };

/** Runs `work(i)` for i < n with at most `width` at once. */
export async function spread(n: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, width) }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

export interface Played {
  steps: number;
  /** Step latencies in ms, sorted. */
  latencies: number[];
  errors: number;
  finished: number;
  /** Finished episodes that did not score 1 (a reference rollout always does). */
  wrong: number;
}

/**
 * `sessions` loops, each playing reference rollouts one after another for `ms` (a finished one starts
 * another); with `thinkMs`, a jittered think time between steps (a trainer's policy generating); with
 * `replay`, each turn is scored by replaying the log so far (POST /v1/episodes/score) instead of a session.
 */
export async function play(
  client: Client,
  plans: Plan[],
  options: { ms: number; sessions: number; thinkMs?: number; replay?: boolean },
): Promise<Played> {
  const { ms, sessions, thinkMs = 0, replay = false } = options;
  const until = performance.now() + ms;
  const latencies: number[] = [];
  let [errors, finished, wrong] = [0, 0, 0];
  await Promise.all(
    Array.from({ length: sessions }, async (_, loop) => {
      for (let k = loop; performance.now() < until; k += sessions) {
        const plan = plans[k % plans.length] as Plan;
        const created = replay
          ? null
          : await client
              .send('POST', '/v1/episodes', { env: plan.env, seed: plan.seed, level: plan.level })
              .catch(() => failed);
        if (created && created.status !== 200) {
          errors++;
          continue;
        }
        let over = false;
        for (let t = 0; t < plan.actions.length && performance.now() < until; t++) {
          const t0 = performance.now();
          const r = await (replay
            ? client.send('POST', '/v1/episodes/score', {
                env: plan.env,
                seed: plan.seed,
                level: plan.level,
                actions: plan.actions.slice(0, t + 1),
              })
            : client.send('POST', `/v1/episodes/${created?.body.episode as string}/step`, {
                ...(plan.actions[t] as object),
                turn: t + 1,
              })
          ).catch(() => failed);
          latencies.push(performance.now() - t0);
          if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs * (0.5 + Math.random())));
          if (r.status !== 200) errors++;
          if (t === plan.actions.length - 1) {
            finished++;
            over = true;
            if (r.body.score !== 1) wrong++;
          }
        }
        // An episode cut off by the clock is ended, so its session does not hold a slot into the next phase.
        if (created && !over)
          await client.send('DELETE', `/v1/episodes/${created.body.episode as string}`).catch(() => failed);
      }
    }),
  );
  return { steps: latencies.length, latencies: latencies.sort((a, b) => a - b), errors, finished, wrong };
}

export interface Held extends Played {
  /** Sessions created (each stepped once) and held open. */
  held: number;
  createErrors: number;
  createMs: number;
  /** How long the stepping ran (at most `ms`: a session stops one action short of its end). */
  stepMs: number;
}

/**
 * Opens `sessions` episodes at once (each created and stepped once), then steps every one of them closed
 * loop for `ms`, none to its end (the last action of a plan is never sent), so all stay open; `whileHeld`
 * runs with them all open (to read the server's memory). Every session is ended (truncated) afterwards.
 */
export async function holdAndStep(
  client: Client,
  plans: Plan[],
  options: { ms: number; sessions: number; whileHeld: () => void },
): Promise<Held> {
  const { ms, sessions } = options;
  const ids: Array<{ id: string; plan: Plan } | null> = new Array(sessions).fill(null);
  let createErrors = 0;
  const created = performance.now();
  await spread(sessions, 256, async (i) => {
    const plan = plans[i % plans.length] as Plan;
    const r = await client
      .send('POST', '/v1/episodes', { env: plan.env, seed: plan.seed, level: plan.level })
      .catch(() => failed);
    const stepped =
      r.status === 200 && plan.actions.length > 1
        ? await client
            .send('POST', `/v1/episodes/${r.body.episode as string}/step`, { ...(plan.actions[0] as object), turn: 1 })
            .catch(() => failed)
        : failed;
    if (stepped.status === 200) ids[i] = { id: r.body.episode as string, plan };
    else createErrors++;
  });
  const createMs = performance.now() - created;
  const started = performance.now();
  const until = started + ms;
  const latencies: number[] = [];
  let errors = 0;
  await Promise.all(
    ids.map(async (session) => {
      if (!session) return;
      for (let t = 1; t < session.plan.actions.length - 1 && performance.now() < until; t++) {
        const t0 = performance.now();
        const r = await client
          .send('POST', `/v1/episodes/${session.id}/step`, { ...(session.plan.actions[t] as object), turn: t + 1 })
          .catch(() => failed);
        latencies.push(performance.now() - t0);
        if (r.status !== 200) errors++;
      }
    }),
  );
  const stepMs = Math.min(ms, performance.now() - started);
  options.whileHeld();
  const open = ids.filter((s): s is { id: string; plan: Plan } => s !== null);
  await spread(
    open.length,
    256,
    async (i) =>
      void (await client.send('DELETE', `/v1/episodes/${(open[i] as { id: string }).id}`).catch(() => failed)),
  );
  return {
    held: open.length,
    createErrors,
    createMs,
    stepMs,
    steps: latencies.length,
    latencies: latencies.sort((a, b) => a - b),
    errors,
    finished: 0,
    wrong: 0,
  };
}
