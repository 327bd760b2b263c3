// The offline author's episodic half: it honours the run's kind (single, episodic, mixed by coverage), its
// three episodic families emit v2 modules the real validator admits, mutually novel, and
// `envforge run --kind episodic` admits them with no LLM and counts them by kind.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createOfflineAuthor } from '../agents/offline/author.js';
import { isOfflineEpisodicSpec } from '../agents/offline/episodic/author.js';
import { checkEpisodic } from '../agents/offline/episodic/check.js';
import { slotKinds } from '../agents/offline/kinds.js';
import type { ArchitectInput } from '../agents/prompts.js';
import { specKind } from '../agents/spec.js';
import type { LibraryStats } from '../library/contract.js';
import { SandboxPool } from '../sandbox/pool.js';
import { NoveltyIndex } from '../validators/novelty/lsh.js';
import { validateCandidate } from '../validators/validate.js';
import { runEnvforge } from './helpers/cli.js';
import { seededLibraryCopy } from './helpers/seeded-library.js';

const pool = new SandboxPool();
afterAll(() => pool.close());

const stats = (single: number, episodic: number): LibraryStats => ({
  environments: single + episodic,
  versions: single + episodic,
  byStatus: {},
  bySkill: {},
  byAuthor: {},
  byKind: { single, episodic },
  levels: null,
  rejections: 0,
});
const input = (kind: ArchitectInput['kind'], n = 3): ArchitectInput => ({
  stats: stats(12, 0),
  n,
  kind,
  environments: [],
});

describe('the offline author and the run kind', () => {
  it.each([
    ['single', 12, 0, ['single', 'single', 'single', 'single']],
    ['episodic', 0, 12, ['episodic', 'episodic', 'episodic', 'episodic']],
    ['mixed', 12, 0, ['episodic', 'single', 'episodic', 'single']],
    ['mixed', 5, 6, ['single', 'episodic', 'single', 'episodic']],
    ['mixed', 6, 6, ['single', 'episodic', 'single', 'episodic']],
  ] as const)('%s with %i single-turn and %i episodic environments gives %j', (kind, single, episodic, want) => {
    expect(slotKinds({ kind, n: 4, stats: stats(single, episodic) })).toEqual(want);
  });

  it('mixed: the weak-skill quota goes first, each slot to a kind that trains the skill', () => {
    expect(
      slotKinds({
        kind: 'mixed',
        n: 2,
        stats: stats(0, 9),
        weakSkills: [{ skill: 'web-navigation', passRate: 0.1, n: 50 }],
      }),
    ).toEqual(['episodic', 'single']);
    const trainsSingle = (skill: string) => skill === 'sorting';
    expect(
      slotKinds({ kind: 'mixed', n: 4, stats: stats(12, 0), focus: { skills: ['sorting'], slots: 3 } }, trainsSingle),
    ).toEqual(['single', 'single', 'single', 'episodic']);
  });

  it(
    'proposes episodic specs carrying their design for --kind episodic, single-turn ones ' +
      'otherwise, deterministically',
    async () => {
      const episodic = await createOfflineAuthor({ seed: 3 }).propose(input('episodic'));
      expect(episodic.specs.length).toBeGreaterThan(0);
      expect(episodic.specs.every((s) => s.kind === 'episodic' && isOfflineEpisodicSpec(s))).toBe(true);
      const again = await createOfflineAuthor({ seed: 3 }).propose(input('episodic'));
      expect(again.specs.map((s) => s.name)).toEqual(episodic.specs.map((s) => s.name));
      const single = await createOfflineAuthor({ seed: 3 }).propose(input('single'));
      expect(single.specs.every((s) => specKind(s) === 'single')).toBe(true);
      // A resumed batch: a fresh author writes the spec from its stored design alone.
      const spec = JSON.parse(JSON.stringify(episodic.specs[0]));
      const written = await createOfflineAuthor({ seed: 3 }).write(spec);
      expect(written.source).toContain('"kind": "episodic"');
      expect(written.source).toContain(`"name": "${spec.name}"`);
    },
  );

  it('writes modules of all three families that the real validator admits, mutually novel', async () => {
    const author = createOfflineAuthor({ seed: 11 });
    const { specs } = await author.propose(input('episodic', 3));
    expect(new Set(specs.map((s) => isOfflineEpisodicSpec(s) && s.offline.family))).toEqual(
      new Set(['records', 'grid', 'webapp']),
    );
    const novelty = new NoveltyIndex();
    for (const spec of specs) {
      const { source } = await author.write(spec);
      const report = await validateCandidate(source as string, { pool, novelty });
      expect(report.verdict, `${spec.name}: ${report.problems.map((p) => `${p.code} ${p.message}`).join('; ')}`).toBe(
        'admit',
      );
      novelty.add(spec.name, report.fingerprint!);
    }
  });

  it('admits a grid world: a room its walk never entered is no withheld decision', async () => {
    // Rejected E_RULE_IGNORED at validation seeds 1, 2, 3, 5, 6 before routes were told from decisions (CI, session
    // 10).
    const author = createOfflineAuthor({ seed: 11 });
    const { specs } = await author.propose(input('episodic', 3));
    const grid = specs.find((s) => isOfflineEpisodicSpec(s) && s.offline.family === 'grid');
    const { source } = await author.write(grid!);
    const report = await validateCandidate(source as string, { pool, validationSeed: 1 });
    expect(report.problems.map((p) => p.code)).toEqual([]);
  });

  it('repairs an episodic spec with a new design of its family, named after it (not the first)', async () => {
    const author = createOfflineAuthor({ seed: 4 });
    const [spec] = (await author.propose(input('episodic', 1))).specs;
    const first = await author.write(spec!);
    const repaired = await author.repair(
      spec!,
      first.source!,
      { problems: [{ code: 'E_DUPLICATE_CODE' }] } as never,
      1,
    );
    expect(repaired.source).not.toBe(first.source);
    const name = /"name": "([^"]+)"/.exec(repaired.source!)?.[1];
    expect(name).not.toBe(spec!.name);
    // The name's first word (its domain) is the world the module's own text describes.
    expect(repaired.source!.replace(/"name": "[^"]+"/, '').toLowerCase()).toContain((name as string).split('-')[0]);
    expect(checkEpisodic(repaired.source!).ok).toBe(true);
  });

  it('the design-time check refuses a module whose score pays for no work', async () => {
    const author = createOfflineAuthor({ seed: 4 });
    const [spec] = (await author.propose(input('episodic', 1))).specs;
    const { source } = await author.write(spec!);
    const broken = source!.replace(
      'export function score(state) {',
      'export function score(state) {\n  if (state.done) return 1;',
    );
    expect(checkEpisodic(broken).reasons.join('\n')).toMatch(
      /finishing call alone scores|no action scores|another episode/,
    );
  });
});

describe('envforge run --kind episodic', () => {
  it('admits episodic environments with no LLM, and library stats counts them by kind', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'envforge-episodic-run-')), 'lib');
    // A library of the single-turn seeds first (seconds); a new one for --kind episodic would get the episodic seeds (a
    // minute).
    // `library init --kind single`, once per test run
    expect((await seededLibraryCopy('single', dir)).init.code).toBe(0);
    const run = await runEnvforge(
      'run',
      '--kind',
      'episodic',
      '--target',
      '2',
      '--provider',
      'offline',
      '--seed',
      '7',
      '--library',
      dir,
    );
    expect(run.stdout).toMatch(/\| episodic \| \d+ \| \d+ \| [2-9]/);
    const json = JSON.parse((await runEnvforge('library', 'stats', '--json', '--library', dir)).stdout) as LibraryStats;
    expect(json.byKind?.episodic).toBeGreaterThanOrEqual(2);
    expect(json.byKind?.single).toBe(json.environments - (json.byKind?.episodic ?? 0));
    expect((await runEnvforge('library', 'stats', '--library', dir)).stdout).toMatch(
      /kinds: single \d+, episodic [2-9]/,
    );
  }, 600_000); // with the run's seeded library, made by the first file to ask (minutes under load)
});
