// The unit files that share worker processes (tests/setup/unit-files.ts): each exists, none changes process-wide
// state, the whole suite's two projects hold every test file once, and those files start after the others, in a row.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TestProject, TestSpecification, Vitest } from 'vitest/node';
import suite from '../vitest.config.js';
import { LongestFirstSequencer } from './setup/sequencer.js';
import { OWN_PROCESS_UNIT_FILES, SHARED_PROCESS_FILES } from './setup/unit-files.js';

/** What, written in a test file, leaves state behind for the next file of the same process. */
const PROCESS_STATE = [
  /\bvi\s*\.\s*(?:doMock|mock)\s*\(/,
  /\bvi\s*\.\s*(?:stubEnv|stubGlobal|useFakeTimers)\s*\(/,
  /\bprocess\s*\.\s*env\b[^;\n]*?(?<![=!<>])=(?![=>])/,
  /\bdelete\s+process\s*\.\s*env\b/,
  /\bprocess\s*\.\s*(?:chdir|on|once|umask)\s*\(/,
];

describe('the unit files that share a process', () => {
  it('exist, and change no environment variable, global, mock or working folder', () => {
    const offences = SHARED_PROCESS_FILES.flatMap((file) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return [`${file}: missing`];
      }
      return PROCESS_STATE.filter((pattern) => pattern.test(text)).map((pattern) => `${file}: ${pattern.source}`);
    });
    expect(offences).toEqual([]);
  });

  it('the state patterns find such a change written in several ways (the check can fail)', () => {
    const written = [
      'vi.mock("../x.js")',
      'vi . doMock("y")',
      "vi.stubEnv('A', '1')",
      "process.env.ENVFORGE_VALIDATION_SEED = '1'",
      "process.env['A'] = 'b'",
      'process.env.A ??= "1"',
      'delete process.env.A',
      "process.chdir('/tmp')",
    ];
    const missed = written.filter((line) => !PROCESS_STATE.some((pattern) => pattern.test(line)));
    expect(missed).toEqual([]);
    expect(PROCESS_STATE.some((pattern) => pattern.test('const seed = process.env.A === "1";'))).toBe(false);
  });

  it('are the whole suite\'s "shared" project, and every other test file is in its "isolated" one', () => {
    const projects = (suite.test?.projects ?? []) as {
      test: { name: string; include: string[]; exclude?: string[] };
    }[];
    const shared = projects.find((project) => project.test.name === 'shared');
    const isolated = projects.find((project) => project.test.name === 'isolated');
    expect(shared?.test.include).toEqual(SHARED_PROCESS_FILES);
    expect(isolated?.test.include).toEqual(['tests/**/*.test.ts']);
    expect(isolated?.test.exclude).toEqual(expect.arrayContaining(SHARED_PROCESS_FILES));
    for (const file of OWN_PROCESS_UNIT_FILES) expect(isolated?.test.exclude).not.toContain(file);
    const all = readdirSync('tests').filter((name) => name.endsWith('.test.ts'));
    expect(all).toEqual(expect.arrayContaining(SHARED_PROCESS_FILES.map((file) => file.replace('tests/', ''))));
  });
});

describe('the order the suite starts its files in', () => {
  const spec = (file: string, isolate: boolean) =>
    ({ moduleId: `/repo/${file}`, project: { config: { root: '/repo', isolate } } }) as unknown as TestSpecification;

  it('is longest first, a file missing from the durations first, the shared files last (longest first)', async () => {
    const sequencer = new LongestFirstSequencer({ projects: [] as TestProject[] } as unknown as Vitest);
    const files = [
      spec('tests/architecture.test.ts', false),
      spec('tests/novelty.test.ts', false),
      spec('tests/worker-script.test.ts', true),
      spec('tests/not-on-the-list.test.ts', true),
      spec('tests/redteam-trust4.test.ts', true),
      spec('tests/library.test.ts', false),
    ];
    const order = (await sequencer.sort(files)).map((file) => file.moduleId.replace('/repo/tests/', ''));
    expect(order).toEqual([
      'not-on-the-list.test.ts',
      'redteam-trust4.test.ts',
      'worker-script.test.ts',
      'architecture.test.ts',
      'library.test.ts',
      'novelty.test.ts',
    ]);
  });
});
