// What the reward service learns about the learner: every score a trainer asks for, tallied per environment
// version × level in memory and flushed to the library's score log (durable, windowed); `level: "auto"`
// draws levels near a 0.5 pass rate from these tallies, as SCALER's controller aims its curriculum. Every
// score is attributed: the operator's are trusted and steer, any other client's are kept apart and never do.
import { logLine } from '../contract/text.js';
import { PASS_SCORE, SCORE_WINDOW, type ScoreInput, type ScoreTally } from '../library/contract.js';
import { LazyWriter } from '../library/writer.js';
import type { Client } from './clients.js';

/** The pass rate `level: "auto"` aims at. */
export const TARGET_PASS_RATE = 0.5;

type Counts = Pick<ScoreInput, 'n' | 'passed' | 'scoreSum'>;
const keyOf = (name: string, version: number, level: number, trusted = true) =>
  `${name}\u0000${version}\u0000${level}\u0000${trusted ? 1 : 0}`;
/** Principals whose scores this service remembers for the operator's view (the least recent forgotten first). */
const CLIENTS_KEPT = 1_024;
/**
 * Client ids remembered inside one principal (the least recent forgotten first, still counted in its principal's
 * totals): an id is self-declared, so one client naming itself many ways fills only its own view.
 */
export const IDS_KEPT = 32;

/** What one client's scores came to since this service started. */
export interface ClientScores {
  trusted: boolean;
  n: number;
  passed: number;
  lastAt: string;
}

/** What one principal's scores came to, and (inside it) those of the ids its clients named themselves with. */
export interface PrincipalScores extends ClientScores {
  ids: Map<string, ClientScores>;
}

/** `map` with `key` moved to the newest place, holding `value`, and its oldest entry forgotten past `limit`. */
function touch<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value as string);
}

/** Counts with one more score. */
const counted = (seen: ClientScores, passed: boolean, at: string): ClientScores => ({
  trusted: seen.trusted,
  n: seen.n + 1,
  passed: seen.passed + (passed ? 1 : 0),
  lastAt: at,
});

/** mulberry32: a small seeded generator, so a selection's levels follow from its seed and the tallies. */
export function seededUniform(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class ScoreBoard {
  private stored = new Map<string, Counts>();
  private pending = new Map<string, ScoreInput>();
  private readonly writer: LazyWriter;
  private flushing: Promise<void> | null = null;
  /**
   * Per principal (ids inside it), what it had scored: the attribution the operator reads (GET /v1/admin/clients). A
   * principal is the unit a client cannot multiply by naming itself, so no client's ids push another out of view.
   */
  readonly byClient = new Map<string, PrincipalScores>();

  constructor(
    libraryDir: string,
    private readonly warn: (line: string) => void = (line) => process.stderr.write(`${logLine(line)}\n`),
  ) {
    this.writer = new LazyWriter(libraryDir, (reason) =>
      this.warn(`envforge serve: trainer scores are kept in memory only (the library cannot be written: ${reason})`),
    );
  }

  /** Replaces the view of what the library holds (this process's flushed counts included). */
  refresh(tallies: ScoreTally[]): void {
    this.stored = new Map(
      tallies.map((t) => [
        keyOf(t.name, t.version, t.level, t.trusted),
        { n: t.n, passed: t.passed, scoreSum: t.scoreSum },
      ]),
    );
  }

  /**
   * The one place a score is recorded (verify, get_reward, and any future path): as `client`'s. Only the
   * operator's scores are trusted, and only trusted tallies steer `level: "auto"`, the batch and nightly.
   */
  add(
    name: string,
    version: number,
    level: number,
    score: number,
    client: Pick<Client, 'principal' | 'id' | 'trusted'>,
  ): void {
    const trusted = client.trusted;
    const key = keyOf(name, version, level, trusted);
    const t = this.pending.get(key) ?? { name, version, level, n: 0, passed: 0, scoreSum: 0, trusted };
    t.n++;
    const passed = score >= PASS_SCORE;
    if (passed) t.passed++;
    t.scoreSum += Math.min(1, Math.max(0, score));
    this.pending.set(key, t);
    const at = new Date().toISOString();
    const fresh = { trusted, n: 0, passed: 0, lastAt: '' };
    const seen = this.byClient.get(client.principal) ?? { ...fresh, ids: new Map<string, ClientScores>() };
    if (client.id !== null) touch(seen.ids, client.id, counted(seen.ids.get(client.id) ?? fresh, passed, at), IDS_KEPT);
    touch(this.byClient, client.principal, { ...counted(seen, passed, at), ids: seen.ids }, CLIENTS_KEPT);
  }

  /** Stored and pending trusted counts together (the window applied to the sum): what steers. */
  counts(name: string, version: number, level: number): Counts {
    const key = keyOf(name, version, level);
    const a = this.stored.get(key) ?? { n: 0, passed: 0, scoreSum: 0 };
    const b = this.pending.get(key) ?? { n: 0, passed: 0, scoreSum: 0 };
    const n = a.n + b.n;
    const scale = n > SCORE_WINDOW ? SCORE_WINDOW / n : 1;
    return { n: n * scale, passed: (a.passed + b.passed) * scale, scoreSum: (a.scoreSum + b.scoreSum) * scale };
  }

  /**
   * A level in [lo, hi] whose pass rate is near TARGET_PASS_RATE: each level's rate is drawn from its
   * posterior (a Beta(passed + 1, failed + 1), by its normal approximation) and the draw nearest the target
   * wins. Unseen levels are drawn near 0.5, so they get tried; levels with many scores far from 0.5 stop
   * being chosen; ties between equally good levels are spread by the draws.
   */
  pickLevel(name: string, version: number, lo: number, hi: number, uniform: () => number): number {
    let best = lo;
    let bestDistance = Infinity;
    for (let level = lo; level <= hi; level++) {
      const { n, passed } = this.counts(name, version, level);
      const mean = (passed + 1) / (n + 2);
      const sd = Math.sqrt((mean * (1 - mean)) / (n + 3));
      const z = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
      const distance = Math.abs(mean + sd * z - TARGET_PASS_RATE);
      if (distance < bestDistance) [best, bestDistance] = [level, distance];
    }
    return best;
  }

  /** Writes the pending counts to the library (one transaction); they stay counted in memory either way. */
  flush(): Promise<void> {
    if (this.flushing || this.pending.size === 0) return this.flushing ?? Promise.resolve();
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = (async () => {
      const writer = this.writer.get();
      try {
        if (!writer) throw new Error('no writable library');
        await writer.recordScores(batch);
        this.refresh(await writer.scoreTallies()); // what every service recorded, this one's flush included
      } catch (error) {
        for (const t of batch) this.merge(t); // kept for the next try
        if (writer) this.warn(`envforge serve: could not record trainer scores: ${(error as Error).message}`);
      }
    })().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private merge(t: ScoreInput): void {
    const key = keyOf(t.name, t.version, t.level, t.trusted === true);
    const p = this.pending.get(key);
    this.pending.set(
      key,
      p ? { ...p, n: p.n + t.n, passed: p.passed + t.passed, scoreSum: p.scoreSum + t.scoreSum } : t,
    );
  }

  async close(): Promise<void> {
    await this.flushing;
    await this.flush();
    await this.writer.close();
  }
}
