// The dashboard's in-memory view of the library: one summary row per environment name, with the paging,
// filtering and sorting the library table asks for, done on the server so 10,000 environments stay fast.
import { ALL_KINDS, kindOf } from '../kinds/registry.js';
import type { EnvRecord, ScoreTally } from '../library/contract.js';

/** One environment name in the library table (its newest version, with counts over every version). */
export interface EnvRow {
  name: string;
  title: string;
  kind: string;
  skills: string[];
  version: number;
  versions: number;
  status: 'active' | 'retired';
  retiredReason: string | null;
  /** When its newest version was admitted. */
  admittedAt: string;
  author: string;
  levels: number;
  /** Reference size (chars) at level 1 and at the top level: how far the difficulty curve reaches. */
  difficulty: { from: number; to: number } | null;
  /** The trainer's pass rate over the scores the reward service recorded (all levels), or null. */
  passRate: number | null;
  scores: number;
}

export const SORT_FIELDS = [
  'name',
  'kind',
  'versions',
  'admittedAt',
  'author',
  'levels',
  'status',
  'passRate',
  'difficulty',
] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export interface EnvQuery {
  /** Words that must all appear in the name, title, skills, kind or author (case-insensitive). */
  q?: string;
  status?: 'active' | 'retired' | 'all';
  skill?: string;
  /** Only this kind, by its label ('single-turn', 'episodic', 'code': DASHBOARD_KINDS). */
  kind?: string;
  sort?: SortField;
  dir?: 'asc' | 'desc';
  /** 1-based. */
  page?: number;
  size?: number;
}

export interface EnvPage {
  page: number;
  size: number;
  total: number;
  /** Tabulator's remote pagination reads last_page and data. */
  last_page: number;
  data: EnvRow[];
}

export const MAX_PAGE_SIZE = 200;

/** The kinds the library page filters by. */
export const DASHBOARD_KINDS: readonly string[] = ALL_KINDS.map((kind) => kind.label);

const kindOfMeta = (meta: unknown): string => kindOf(meta).label;

const compare = (a: unknown, b: unknown): number => {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1; // unknowns last, whichever the direction
  if (b === null || b === undefined) return -1;
  return a < b ? -1 : 1;
};

export class LibraryView {
  readonly rows: EnvRow[];
  private readonly haystacks: string[];
  readonly byName = new Map<string, EnvRow>();
  readonly skills: string[];

  constructor(records: readonly EnvRecord[], tallies: readonly ScoreTally[] = []) {
    const passed = new Map<string, { n: number; passed: number }>();
    for (const t of tallies) {
      const s = passed.get(t.name) ?? { n: 0, passed: 0 };
      passed.set(t.name, { n: s.n + t.n, passed: s.passed + t.passed });
    }
    const byName = new Map<string, EnvRecord[]>();
    for (const r of records) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
    this.rows = [...byName.values()].map((versions) => {
      const newest = versions.reduce((a, b) => (b.version > a.version ? b : a));
      const active = versions.some((v) => v.status === 'active');
      const curve = newest.curve;
      const score = passed.get(newest.name);
      return {
        name: newest.name,
        title: newest.meta.title,
        kind: kindOfMeta(newest.meta),
        skills: [...newest.meta.skills],
        version: newest.version,
        versions: versions.length,
        status: active ? 'active' : 'retired',
        retiredReason: active ? null : newest.retiredReason,
        admittedAt: newest.createdAt,
        author: newest.lineage.author,
        levels: newest.meta.levels,
        difficulty:
          curve.length > 0 ? { from: curve[0]!.referenceChars, to: curve[curve.length - 1]!.referenceChars } : null,
        passRate: score && score.n > 0 ? score.passed / score.n : null,
        scores: Math.round(score?.n ?? 0),
      } satisfies EnvRow;
    });
    this.rows.sort((a, b) => compare(a.name, b.name));
    this.haystacks = this.rows.map((r) => [r.name, r.title, r.kind, r.author, ...r.skills].join(' ').toLowerCase());
    for (const row of this.rows) this.byName.set(row.name, row);
    this.skills = [...new Set(this.rows.flatMap((r) => r.skills))].sort();
  }

  query(query: EnvQuery = {}): EnvPage {
    const words = (query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const status = query.status ?? 'all';
    let rows: EnvRow[] = [];
    this.rows.forEach((row, i) => {
      if (status !== 'all' && row.status !== status) return;
      if (query.skill && !row.skills.includes(query.skill)) return;
      if (query.kind && row.kind !== query.kind) return;
      const hay = this.haystacks[i] as string;
      if (words.every((w) => hay.includes(w))) rows.push(row);
    });
    if (query.sort && query.sort !== 'name') {
      const key = query.sort;
      const get = key === 'difficulty' ? (r: EnvRow) => r.difficulty?.to ?? null : (r: EnvRow) => r[key];
      const sign = query.dir === 'desc' ? -1 : 1;
      const nullsLast = (a: EnvRow, b: EnvRow) => {
        const [x, y] = [get(a), get(b)];
        if (x === null || y === null) return compare(x, y);
        return sign * compare(x, y) || compare(a.name, b.name);
      };
      rows = rows.sort(nullsLast);
    } else if (query.dir === 'desc') rows = rows.reverse();
    const size = Math.min(MAX_PAGE_SIZE, Math.max(1, query.size ?? 50));
    const lastPage = Math.max(1, Math.ceil(rows.length / size));
    const page = Math.min(lastPage, Math.max(1, query.page ?? 1));
    return { page, size, total: rows.length, last_page: lastPage, data: rows.slice((page - 1) * size, page * size) };
  }
}
