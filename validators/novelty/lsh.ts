// The novelty index: admitted environments' fingerprints in LSH buckets (bands of MinHash rows), so a
// candidate is compared only with the few that share a bucket, then verified with exactly the rule a full
// scan applies. It stays fast at 10,000+ environments (npm run bench: novelty).
import type { Fingerprint } from './fingerprint.js';
import {
  EMPTY_SLOT,
  estimateSimilarity,
  fmix32,
  hashString,
  isEmptySignature,
  resolveOptions,
  similarityAtLeast,
  type NoveltyOptions,
} from './minhash.js';

export interface NoveltyMatch {
  id: string;
  codeSimilarity: number;
  behaviourSimilarity: number;
  /** 'code' when the code matched (also when behaviour matched too), else 'behaviour'. */
  kind: 'code' | 'behaviour';
}

interface Entry {
  id: string;
  code: Uint32Array;
  behaviour: Uint32Array;
  answerType: string;
  codeKeys: Uint32Array | null;
  behaviourKeys: Uint32Array | null;
  mark: number;
}

function compareMatches(x: NoveltyMatch, y: NoveltyMatch): number {
  const d = Math.max(y.codeSimilarity, y.behaviourSimilarity) - Math.max(x.codeSimilarity, x.behaviourSimilarity);
  if (d !== 0) return d;
  return x.id < y.id ? -1 : x.id > y.id ? 1 : 0;
}

/** MinHash/LSH index of admitted environments' fingerprints. */
export class NoveltyIndex {
  readonly options: NoveltyOptions;
  readonly rows: number;
  private readonly entries = new Map<string, Entry>();
  private readonly codeBuckets: Array<Map<number, Entry[]>>;
  private readonly behaviourBuckets: Array<Map<number, Entry[]>>;
  private stamp = 0;
  /** How many LSH candidates the last query verified (for benchmarks and diagnostics). */
  lastCandidates = 0;

  constructor(options?: Partial<NoveltyOptions>) {
    this.options = Object.freeze(resolveOptions(options));
    this.rows = this.options.permutations / this.options.bands;
    this.codeBuckets = Array.from({ length: this.options.bands }, () => new Map<number, Entry[]>());
    this.behaviourBuckets = Array.from({ length: this.options.bands }, () => new Map<number, Entry[]>());
  }

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** Adds or replaces the fingerprint stored under id. */
  add(id: string, fp: Fingerprint): void {
    const code = this.signature(fp.code, 'code');
    const behaviour = this.signature(fp.behaviour, 'behaviour');
    if (typeof fp.answerType !== 'string') throw new TypeError('novelty: answerType must be a string');
    this.remove(id);
    const entry: Entry = {
      id,
      code,
      behaviour,
      answerType: fp.answerType,
      codeKeys: isEmptySignature(code) ? null : this.bandKeys(code, 0),
      behaviourKeys: isEmptySignature(behaviour) ? null : this.bandKeys(behaviour, hashString(fp.answerType)),
      mark: 0,
    };
    this.entries.set(id, entry);
    if (entry.codeKeys) this.insert(this.codeBuckets, entry.codeKeys, entry);
    if (entry.behaviourKeys) this.insert(this.behaviourBuckets, entry.behaviourKeys, entry);
  }

  remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    if (entry.codeKeys) this.erase(this.codeBuckets, entry.codeKeys, entry);
    if (entry.behaviourKeys) this.erase(this.behaviourBuckets, entry.behaviourKeys, entry);
  }

  /**
   * Near-duplicates of fp: LSH candidates, then verified by estimated similarity; code matches when codeSimilarity >=
   * codeThreshold; behaviour matches when behaviourSimilarity >= behaviourThreshold AND same answerType. Sorted by max
   * similarity desc (then id).
   */
  query(fp: Fingerprint, limit: number = Infinity): NoveltyMatch[] {
    const code = this.signature(fp.code, 'code');
    const behaviour = this.signature(fp.behaviour, 'behaviour');
    const stamp = ++this.stamp;
    const candidates: Entry[] = [];
    const collect = (buckets: Array<Map<number, Entry[]>>, keys: Uint32Array): void => {
      for (let band = 0; band < keys.length; band++) {
        const bucket = (buckets[band] as Map<number, Entry[]>).get(keys[band] as number);
        if (!bucket) continue;
        for (const e of bucket) {
          if (e.mark !== stamp) {
            e.mark = stamp;
            candidates.push(e);
          }
        }
      }
    };
    if (!isEmptySignature(code)) collect(this.codeBuckets, this.bandKeys(code, 0));
    if (!isEmptySignature(behaviour))
      collect(this.behaviourBuckets, this.bandKeys(behaviour, hashString(fp.answerType)));
    this.lastCandidates = candidates.length;
    return this.verify(candidates, code, behaviour, fp.answerType, limit);
  }

  /** Brute-force scan with the same rule, for tests and the benchmark. */
  scan(fp: Fingerprint, limit: number = Infinity): NoveltyMatch[] {
    const code = this.signature(fp.code, 'code');
    const behaviour = this.signature(fp.behaviour, 'behaviour');
    return this.verify(this.entries.values(), code, behaviour, fp.answerType, limit);
  }

  private signature(sig: ArrayLike<number>, what: string): Uint32Array {
    if (!sig || sig.length !== this.options.permutations) {
      throw new RangeError(
        `novelty: ${what} signature must have ${this.options.permutations} slots, got ${sig ? sig.length : 'none'}`,
      );
    }
    const out = new Uint32Array(sig.length);
    for (let i = 0; i < sig.length; i++) {
      const v = sig[i] as number;
      if (!Number.isInteger(v) || v < 0 || v > EMPTY_SLOT)
        throw new RangeError(`novelty: ${what} signature slot ${i} is not a uint32`);
      out[i] = v;
    }
    return out;
  }

  /** One 32-bit key per band: an fmix32 chain over the band's rows, salted with the band number and `salt`. */
  private bandKeys(sig: Uint32Array, salt: number): Uint32Array {
    const { bands } = this.options;
    const rows = this.rows;
    const keys = new Uint32Array(bands);
    for (let band = 0; band < bands; band++) {
      let h = Math.imul(band + 1, 0x9e3779b1) ^ salt;
      const base = band * rows;
      for (let r = 0; r < rows; r++) h = fmix32(Math.imul(h ^ (sig[base + r] as number), 0xcc9e2d51) + r);
      keys[band] = h;
    }
    return keys;
  }

  private insert(buckets: Array<Map<number, Entry[]>>, keys: Uint32Array, entry: Entry): void {
    for (let band = 0; band < keys.length; band++) {
      const map = buckets[band] as Map<number, Entry[]>;
      const key = keys[band] as number;
      const bucket = map.get(key);
      if (bucket) bucket.push(entry);
      else map.set(key, [entry]);
    }
  }

  private erase(buckets: Array<Map<number, Entry[]>>, keys: Uint32Array, entry: Entry): void {
    for (let band = 0; band < keys.length; band++) {
      const map = buckets[band] as Map<number, Entry[]>;
      const key = keys[band] as number;
      const bucket = map.get(key);
      if (!bucket) continue;
      const at = bucket.indexOf(entry);
      if (at >= 0) bucket.splice(at, 1);
      if (bucket.length === 0) map.delete(key);
    }
  }

  private verify(
    entries: Iterable<Entry>,
    code: Uint32Array,
    behaviour: Uint32Array,
    answerType: string,
    limit: number,
  ): NoveltyMatch[] {
    const { codeThreshold, behaviourThreshold } = this.options;
    const codeEmpty = isEmptySignature(code);
    const behaviourEmpty = isEmptySignature(behaviour);
    const matches: NoveltyMatch[] = [];
    for (const e of entries) {
      // Cheap bounded checks first; full similarities only for the (rare) matches.
      const c = codeEmpty ? -1 : similarityAtLeast(code, e.code, codeThreshold);
      const b =
        behaviourEmpty || answerType !== e.answerType
          ? -1
          : similarityAtLeast(behaviour, e.behaviour, behaviourThreshold);
      const codeMatch = c >= codeThreshold;
      const behaviourMatch = b >= behaviourThreshold;
      if (!codeMatch && !behaviourMatch) continue;
      const codeSimilarity = c >= 0 ? c : estimateSimilarity(code, e.code);
      const behaviourSimilarity = b >= 0 ? b : estimateSimilarity(behaviour, e.behaviour);
      matches.push({ id: e.id, codeSimilarity, behaviourSimilarity, kind: codeMatch ? 'code' : 'behaviour' });
    }
    matches.sort(compareMatches);
    return Number.isFinite(limit) ? matches.slice(0, Math.max(0, Math.floor(limit))) : matches;
  }
}
