// Weak-skill steering: a share of the target goes to the trainer's weak skills (round-robin), the architect
// is told each round how many specs must aim at them, specs that train none are set aside once the other
// admissions are taken, and the frontier with admitted-per-skill against wanted-per-skill is reported. The
// last test is a whole offline run through the CLI with a feedback file.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderArchitect } from '../agents/prompts.js';
import { runCli } from '../cli/program.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { WeakSteering } from '../pipeline/steering.js';
import { seededLibraryCopy } from './helpers/seeded-library.js';

const weak = [
  { skill: 'sorting', passRate: 0.12, n: 200 },
  { skill: 'graph-traversal', passRate: 0.18, n: 200 },
  { skill: 'probability', passRate: 0.2, n: 100 },
];
const saturated = [{ skill: 'arithmetic', passRate: 0.95, n: 300 }];

describe('WeakSteering', () => {
  it(
    'wants ceil(share × target) admissions for the weak skills it can train, dealt ' +
      'round-robin, and names the rest',
    () => {
      const steering = new WeakSteering({
        weak,
        saturated,
        weakShare: 0.6,
        target: 11,
        canTrain: (s) => s !== 'probability',
      });
      expect(steering.weakWanted).toBe(7);
      expect(Object.fromEntries(steering.wanted)).toEqual({ sorting: 4, 'graph-traversal': 3 });
      expect(steering.report()).toMatchObject({
        untrainable: [{ skill: 'probability', passRate: 0.2 }],
        saturated: [{ skill: 'arithmetic' }],
        weakAdmitted: 0,
      });
      expect(new WeakSteering({ weak, saturated, weakShare: 0, target: 10 }).active).toBe(false);
      expect(new WeakSteering({ weak: [], saturated, weakShare: 0.6, target: 10 }).focus(6)).toBeUndefined();
    },
  );

  it(
    'asks each round for the weak share of its specs, all of them once the other admissions are taken, ' +
      'none once the share is met',
    () => {
      const steering = new WeakSteering({ weak: weak.slice(0, 2), saturated, weakShare: 0.6, target: 5 });
      expect(steering.focus(6)).toEqual({ skills: ['sorting', 'graph-traversal'], slots: 4 });
      for (let i = 0; i < 2; i++) {
        expect(steering.start({ skills: ['strings'] })).toBe(true);
        steering.finish({ skills: ['strings'] });
        steering.admitted(['strings']);
      }
      // The two other admissions (5 - ceil(0.6 × 5)) are taken: a spec that trains no weak skill waits.
      expect(steering.focus(6)).toMatchObject({ slots: 6 });
      expect(steering.start({ skills: ['strings', 'encoding'] })).toBe(false);
      expect(steering.start({ skills: ['sorting'] })).toBe(true);
      steering.finish({ skills: ['sorting'] });
      steering.admitted(['sorting', 'arithmetic']);
      // The skill with the larger remaining deficit comes first; on a tie, the weaker one.
      expect(steering.focus(6)?.skills).toEqual(['sorting', 'graph-traversal']);
      steering.admitted(['sorting']);
      expect(steering.focus(6)?.skills).toEqual(['graph-traversal', 'sorting']);
      steering.admitted(['graph-traversal']);
      expect(steering.focus(6)).toBeUndefined();
      expect(steering.start({ skills: ['strings'] })).toBe(true);
      expect(steering.report()).toMatchObject({
        weakAdmitted: 3,
        weakWanted: 3,
        setAside: 1,
        admittedPerSkill: { sorting: 2, strings: 2, 'graph-traversal': 1, arithmetic: 1 },
      });
    },
  );

  it('tells the LLM architect the quota and the saturated skills', () => {
    const stats = {
      environments: 0,
      versions: 0,
      byStatus: {},
      bySkill: {},
      byAuthor: {},
      levels: null,
      rejections: 0,
    };
    const text = renderArchitect({
      stats,
      n: 6,
      weakSkills: weak,
      saturatedSkills: saturated,
      focus: { skills: ['sorting', 'graph-traversal'], slots: 4 },
    }).text;
    expect(text).toContain(
      "This round's quota: at least 4 of the 6 specs must each train one of these weak skills (deal them " +
        'round-robin, in this order): sorting, graph-traversal.',
    );
    expect(text).toContain('Saturated skills (the model already solves them; aim no spec at them): arithmetic (95%).');
    expect(renderArchitect({ stats, n: 6 }).text).toContain('(no quota for weak skills this round)');
  });
});

describe('envforge run --feedback with the offline author', () => {
  const root = mkdtempSync(join(tmpdir(), 'envforge-steer-'));
  const seeded = join(root, 'seeded');
  beforeAll(async () => {
    await seededLibraryCopy('single', seeded); // validated once per test run (tests/helpers/seeded-library.ts)
  }, 600_000); // the first file to ask makes it; the others wait (minutes under load)

  it('admits at least the weak share for weak skills, says what it cannot train, reports the frontier', async () => {
    const library = join(root, 'run');
    cpSync(seeded, library, { recursive: true });
    const feedback = join(root, 'evals.csv');
    writeFileSync(
      feedback,
      'skill,pass_rate,n\nsorting,0.12,200\ngraph-traversal,0.18,200\nprobability,0.2,100\narithmetic,0.95,300\n',
    );
    const config = join(root, 'empty.config.json');
    writeFileSync(config, '{}');
    const out: string[] = [];
    const err: string[] = [];
    // Single-turn only (the weak skills here are single-turn ones): episodic validations would triple its time.
    const args = [
      'run',
      '--provider',
      'offline',
      '--kind',
      'single',
      '--config',
      config,
      '--seed',
      '11',
      '--target',
      '10',
      '--concurrency',
      '2',
      '--feedback',
      feedback,
      '--library',
      library,
      '--json',
    ];
    const code = await runCli(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
    expect(code, err.join('\n')).toBe(0);
    expect(err).toContain('feedback: weak sorting 12%, graph-traversal 18%; saturated arithmetic 95%');
    expect(err).toContain(
      'feedback: weak share 60%: 6 of the admissions should train a weak skill (sorting 3, graph-traversal 3)',
    );
    expect(err).toContain(
      'feedback: this author cannot train the weak skills probability: they are left out of the share',
    );
    expect(err.some((l) => /"type":"admitted".*"weak":\{"admitted":\d+,"wanted":6\}/.test(l))).toBe(true);

    const report = JSON.parse(out.join('\n'));
    const admitted = report.admitted.length;
    expect(admitted).toBeGreaterThanOrEqual(10);
    // Counted from the library, not from the report's own numbers.
    const check = SqliteLibrary.open(library, { readonly: true });
    const skillsOf = await Promise.all(
      report.admitted.map(
        async (a: { name: string; version: number }) => (await check.get(a.name, a.version))?.meta.skills ?? [],
      ),
    );
    await check.close();
    const trainsWeak = skillsOf.filter(
      (skills) => skills.includes('sorting') || skills.includes('graph-traversal'),
    ).length;
    expect(trainsWeak / admitted).toBeGreaterThanOrEqual(0.6);
    expect(report.frontier).toMatchObject({
      weakShare: 0.6,
      weakWanted: 6,
      weakAdmitted: trainsWeak,
      weak: [
        expect.objectContaining({ skill: 'sorting', passRate: 0.12, wanted: 3 }),
        expect.objectContaining({ skill: 'graph-traversal', passRate: 0.18, wanted: 3 }),
      ],
      untrainable: [expect.objectContaining({ skill: 'probability' })],
      saturated: [expect.objectContaining({ skill: 'arithmetic', passRate: 0.95 })],
    });
    expect(report.frontier.admittedPerSkill.sorting).toBe(skillsOf.filter((s) => s.includes('sorting')).length);
    const markdown = readFileSync(join(library, 'batches', `${report.batchId}.md`), 'utf8');
    expect(markdown).toMatch(
      /## Trainer feedback: the frontier\n\nWeak share 60%: \d+ of the 6 admissions wanted for weak skills train one\./,
    );
    expect(markdown).toMatch(/\| sorting \| 12% \| 3 \| \d+ \|\n\| graph-traversal \| 18% \| 3 \| \d+ \|/);
    expect(markdown).toContain('Weak skills this author cannot train (left out of the share): probability (20%).');
    expect(markdown).toContain('Saturated skills (not aimed at): arithmetic (95%).');
  });

  it('--weak-share must be a number from 0 to 1 (exit 2)', async () => {
    const err: string[] = [];
    expect(await runCli(['run', '--weak-share', '1.5'], { out: () => {}, err: (l) => err.push(l) })).toBe(2);
    expect(err.join('\n')).toMatch(/--weak-share needs a number from 0 to 1, got "1.5"/);
  });
});
