// Trainer feedback: JSONL and CSV parse to the same rows, every broken row is reported with its file, line
// and field, rows aggregate per skill and env with n weights, and the frontier picks weak-but-reachable skills.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../contract/errors.js';
import { feedbackFormat, parseFeedback, readFeedbackFile, type FeedbackRow } from '../pipeline/feedback/parse.js';
import { envSkillsOf, summariseFeedback, weakSkills, type FeedbackStat } from '../pipeline/feedback/frontier.js';
import { parseCsvRecords } from '../pipeline/feedback/csv.js';
import { FeedbackError } from '../pipeline/feedback/problems.js';

/** The problems a parse reports (an empty list when it succeeds). */
function problemsOf(text: string, format: 'jsonl' | 'csv', file: string): string[] {
  try {
    parseFeedback(text, format, file);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toBeInstanceOf(FeedbackError);
    return (error as FeedbackError).problems;
  }
}

describe('parseFeedback: JSONL', () => {
  it('reads one object per line, skipping blank lines and # comments, ignoring other keys', () => {
    const text = [
      '# trainer eval, step 1200',
      '{"skill": "graphs", "pass_rate": 0.25, "n": 40}',
      '',
      '   ',
      '{"env": "interval-merge-count", "level": 3, "pass_rate": 0, "n": 12, "model": "policy-7b"}',
      '  # indented comment',
      '{"skill": "dynamic-programming", "env": "knapsack-small", "pass_rate": 1, "n": 5}',
      '{"skill": "sorting", "env": null, "level": null, "pass_rate": 0.5, "n": 8}',
    ].join('\n');
    expect(parseFeedback(text, 'jsonl')).toEqual<FeedbackRow[]>([
      { skill: 'graphs', passRate: 0.25, n: 40 },
      { env: 'interval-merge-count', level: 3, passRate: 0, n: 12 },
      { skill: 'dynamic-programming', env: 'knapsack-small', passRate: 1, n: 5 },
      { skill: 'sorting', passRate: 0.5, n: 8 },
    ]);
  });

  it('accepts CRLF line ends, a byte-order mark and an empty file', () => {
    expect(
      parseFeedback(
        '\ufeff{"skill":"graphs","pass_rate":0.1,"n":3}\r\n{"env":"a-b","pass_rate":0.2,"n":4}\r\n',
        'jsonl',
      ),
    ).toEqual([
      { skill: 'graphs', passRate: 0.1, n: 3 },
      { env: 'a-b', passRate: 0.2, n: 4 },
    ]);
    expect(parseFeedback('', 'jsonl')).toEqual([]);
    expect(parseFeedback('# only a comment\n\n', 'jsonl')).toEqual([]);
  });

  it.each<[string, string, string]>([
    [
      'pass_rate above 1',
      '{"skill":"graphs","pass_rate":1.3,"n":10}',
      'f.jsonl line 2: pass_rate must be a number in [0, 1], got 1.3',
    ],
    [
      'pass_rate below 0',
      '{"skill":"graphs","pass_rate":-0.1,"n":10}',
      'f.jsonl line 2: pass_rate must be a number in [0, 1], got -0.1',
    ],
    [
      'pass_rate a string',
      '{"skill":"graphs","pass_rate":"0.5","n":10}',
      'f.jsonl line 2: pass_rate must be a number in [0, 1], got "0.5"',
    ],
    [
      'pass_rate null',
      '{"skill":"graphs","pass_rate":null,"n":10}',
      'f.jsonl line 2: pass_rate must be a number in [0, 1], got null',
    ],
    ['pass_rate missing', '{"skill":"graphs","n":10}', 'f.jsonl line 2: pass_rate is required (a number in [0, 1])'],
    ['n zero', '{"skill":"graphs","pass_rate":0.5,"n":0}', 'f.jsonl line 2: n must be a positive integer, got 0'],
    [
      'n fractional',
      '{"skill":"graphs","pass_rate":0.5,"n":2.5}',
      'f.jsonl line 2: n must be a positive integer, got 2.5',
    ],
    ['n missing', '{"skill":"graphs","pass_rate":0.5}', 'f.jsonl line 2: n is required (a positive integer)'],
    [
      'level zero',
      '{"skill":"graphs","level":0,"pass_rate":0.5,"n":3}',
      'f.jsonl line 2: level must be a positive integer when present, got 0',
    ],
    [
      'level fractional',
      '{"env":"a-b","level":1.5,"pass_rate":0.5,"n":3}',
      'f.jsonl line 2: level must be a positive integer when present, got 1.5',
    ],
    [
      'skill not kebab-case',
      '{"skill":"Graph Search","pass_rate":0.5,"n":3}',
      'f.jsonl line 2: skill must be kebab-case (lowercase letters and digits in words joined by single ' +
        'hyphens, starting with a letter), got "Graph Search"',
    ],
    [
      'env not a string',
      '{"env":7,"pass_rate":0.5,"n":3}',
      'f.jsonl line 2: env must be kebab-case (lowercase letters and digits in words joined by single ' +
        'hyphens, starting with a letter), got 7',
    ],
    ['neither skill nor env', '{"level":2,"pass_rate":0.5,"n":3}', 'f.jsonl line 2: needs a skill or an env (or both)'],
    ['an array', '[1, 2]', 'f.jsonl line 2: expected a JSON object, got an array'],
    ['a number', '42', 'f.jsonl line 2: expected a JSON object, got 42'],
  ])('reports %s with its line and field', (_, line, message) => {
    expect(
      problemsOf(`# header comment\n${line}\n{"skill":"graphs","pass_rate":0.5,"n":1}\n`, 'jsonl', 'f.jsonl'),
    ).toEqual([message]);
  });

  it('reports invalid JSON with its line number', () => {
    const problems = problemsOf(
      '{"skill":"graphs","pass_rate":0.5,"n":1}\n\n{"skill": "graphs", pass_rate: 1}\n',
      'jsonl',
      'f.jsonl',
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^f\.jsonl line 3: not valid JSON \(.+\); expected one object per line/);
  });

  it('reports every broken field of a row, in field order', () => {
    expect(problemsOf('{"skill":"Bad_Skill","level":-1,"pass_rate":2,"n":0}', 'jsonl', 'f.jsonl')).toEqual([
      'f.jsonl line 1: skill must be kebab-case (lowercase letters and digits in words joined by single ' +
        'hyphens, starting with a letter), got "Bad_Skill"',
      'f.jsonl line 1: level must be a positive integer when present, got -1',
      'f.jsonl line 1: pass_rate must be a number in [0, 1], got 2',
      'f.jsonl line 1: n must be a positive integer, got 0',
    ]);
  });

  it('collects up to 10 problems across lines, counts the rest, and says so in the message', () => {
    const lines = Array.from({ length: 14 }, (_, i) => `{"skill":"graphs","pass_rate":${2 + i},"n":1}`);
    let error: unknown;
    try {
      parseFeedback(lines.join('\n'), 'jsonl', 'big.jsonl');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FeedbackError);
    const { problems, message, code } = error as FeedbackError;
    expect(code).toBe('E_USAGE');
    expect(problems).toHaveLength(10);
    expect(problems.map((p) => p.split(':')[0])).toEqual(
      Array.from({ length: 10 }, (_, i) => `big.jsonl line ${i + 1}`),
    );
    expect(message.split('\n')).toHaveLength(11);
    expect(message.endsWith('… and 4 more problems')).toBe(true);
  });
});

describe('parseFeedback: CSV', () => {
  const expected: FeedbackRow[] = [
    { skill: 'graphs', passRate: 0.25, n: 40 },
    { env: 'interval-merge-count', level: 3, passRate: 0, n: 12 },
    { skill: 'dynamic-programming', env: 'knapsack-small', passRate: 1, n: 5 },
  ];

  it.each<[string, string]>([
    [
      'canonical column order',
      'skill,env,level,pass_rate,n\ngraphs,,,0.25,40\n,interval-merge-count,3,0,12\n' +
        'dynamic-programming,knapsack-small,,1,5\n',
    ],
    [
      'shuffled columns and an extra one',
      'n,model,pass_rate,env,skill,level\n40,m1,0.25,,graphs,\n12,m1,0,interval-merge-count,,3\n' +
        '5,m1,1,knapsack-small,dynamic-programming,\n',
    ],
    [
      'upper-case header, spaces and CRLF',
      'Skill , ENV,Level, Pass_Rate ,N\r\n graphs , , , 0.25 , ' +
        '40\r\n,interval-merge-count,3,0,12\r\ndynamic-programming,knapsack-small,,1.0,5\r\n',
    ],
    [
      'comments, blank lines and a byte-order mark',
      '\ufeff# exported by the trainer\n\nskill,env,level,pass_rate,n\n# first ' +
        'eval\ngraphs,,,0.25,40\n\n,interval-merge-count,3,0,12\n  # ' +
        'another\ndynamic-programming,knapsack-small,,1,5',
    ],
    [
      'quoted fields',
      '"skill","env","level","pass_rate","n"\n"graphs","","","0.25","40"\n' +
        '"","interval-merge-count","3","0","12"\n"dynamic-programming","knapsack-small",,"1","5"\n',
    ],
  ])('reads %s', (_, text) => {
    expect(parseFeedback(text, 'csv')).toEqual(expected);
  });

  it('keeps commas, doubled quotes and newlines inside quoted fields (extra columns can hold them)', () => {
    const text =
      'skill,note,pass_rate,n\ngraphs,"hard, really ' +
      '""hard""",0.1,30\nsorting,"two\nlines",0.2,10\nsearch,plain,0.3,20\n';
    expect(parseFeedback(text, 'csv')).toEqual([
      { skill: 'graphs', passRate: 0.1, n: 30 },
      { skill: 'sorting', passRate: 0.2, n: 10 },
      { skill: 'search', passRate: 0.3, n: 20 },
    ]);
    expect(parseCsvRecords(text).map((r) => [r.line, r.cells])).toEqual([
      [1, ['skill', 'note', 'pass_rate', 'n']],
      [2, ['graphs', 'hard, really "hard"', '0.1', '30']],
      [3, ['sorting', 'two\nlines', '0.2', '10']],
      [5, ['search', 'plain', '0.3', '20']],
    ]);
  });

  it('returns no rows for an empty file or a header alone', () => {
    expect(parseFeedback('', 'csv')).toEqual([]);
    expect(parseFeedback('# nothing yet\n', 'csv')).toEqual([]);
    expect(parseFeedback('skill,pass_rate,n\n', 'csv')).toEqual([]);
  });

  it.each<[string, string, string[]]>([
    [
      'pass_rate above 1 (the documented example)',
      'skill,pass_rate,n\ngraphs,0.5,10\n# c\ngraphs,0.5,10\n\ngraphs,0.5,10\ngraphs,1.3,10\n',
      ['feedback.csv line 7: pass_rate must be a number in [0, 1], got "1.3"'],
    ],
    [
      'pass_rate not a number',
      'skill,pass_rate,n\ngraphs,high,10\n',
      ['feedback.csv line 2: pass_rate must be a number in [0, 1], got "high"'],
    ],
    [
      'pass_rate hexadecimal',
      'skill,pass_rate,n\ngraphs,0x1,10\n',
      ['feedback.csv line 2: pass_rate must be a number in [0, 1], got "0x1"'],
    ],
    [
      'pass_rate empty',
      'skill,pass_rate,n\ngraphs,,10\n',
      ['feedback.csv line 2: pass_rate is required (a number in [0, 1])'],
    ],
    [
      'n fractional',
      'skill,pass_rate,n\ngraphs,0.5,2.5\n',
      ['feedback.csv line 2: n must be a positive integer, got "2.5"'],
    ],
    [
      'n negative',
      'skill,pass_rate,n\ngraphs,0.5,-3\n',
      ['feedback.csv line 2: n must be a positive integer, got "-3"'],
    ],
    [
      'level zero',
      'env,level,pass_rate,n\na-b,0,0.5,3\n',
      ['feedback.csv line 2: level must be a positive integer when present, got "0"'],
    ],
    [
      'level a word',
      'env,level,pass_rate,n\na-b,three,0.5,3\n',
      ['feedback.csv line 2: level must be a positive integer when present, got "three"'],
    ],
    [
      'env not kebab-case',
      'env,pass_rate,n\nA_B,0.5,3\n',
      [
        'feedback.csv line 2: env must be kebab-case (lowercase letters and digits in words joined by single ' +
          'hyphens, starting with a letter), got "A_B"',
      ],
    ],
    [
      'a quoted skill with spaces',
      'skill,pass_rate,n\n" graphs",0.5,3\n',
      [
        'feedback.csv line 2: skill must be kebab-case (lowercase letters and digits in words joined by ' +
          'single hyphens, starting with a letter), got " graphs"',
      ],
    ],
    [
      'neither skill nor env',
      'skill,env,pass_rate,n\n,,0.5,3\n',
      ['feedback.csv line 2: needs a skill or an env (or both)'],
    ],
    [
      'too few fields',
      'skill,pass_rate,n\ngraphs,0.5\n',
      ['feedback.csv line 2: 2 fields, but the header has 3 (quote fields that contain commas)'],
    ],
    [
      'too many fields',
      'skill,pass_rate,n\ngraphs, trees,0.5,3\n',
      ['feedback.csv line 2: 4 fields, but the header has 3 (quote fields that contain commas)'],
    ],
    [
      'a header without pass_rate and n',
      '# c\nskill,rate,count\ngraphs,0.5,3\n',
      [
        'feedback.csv line 2: the header must name the columns pass_rate and n (missing: pass_rate, ' +
          'n); got "skill,rate,count"',
      ],
    ],
    [
      'a header without skill or env',
      'level,pass_rate,n\n1,0.5,3\n',
      ['feedback.csv line 1: the header must name a skill column, an env column, or both'],
    ],
    [
      'a header naming a column twice',
      'skill,pass_rate,n,N\ngraphs,0.5,3,3\n',
      ['feedback.csv line 1: the header names column "n" twice'],
    ],
    [
      'a quote never closed',
      'skill,pass_rate,n\ngraphs,0.5,3\n"graphs,0.5,3\nsorting,0.5,3\n',
      ['feedback.csv line 3: a quoted field is never closed (a " is missing)'],
    ],
    [
      'text after a closing quote',
      'skill,pass_rate,n\n"graphs"x,0.5,3\n',
      ['feedback.csv line 2: unexpected "x" after a closing quote (write a quote inside a quoted field as "")'],
    ],
  ])('reports %s with its line and field', (_, text, problems) => {
    expect(problemsOf(text, 'csv', 'feedback.csv')).toEqual(problems);
  });

  it('counts lines inside multi-line quoted fields when numbering later rows', () => {
    const text = 'skill,note,pass_rate,n\ngraphs,"a\nb\nc",0.5,3\nsorting,x,7,3\n';
    expect(problemsOf(text, 'csv', 'feedback.csv')).toEqual([
      'feedback.csv line 5: pass_rate must be a number in [0, 1], got "7"',
    ]);
  });

  it('reports problems on several rows together', () => {
    const text = 'skill,level,pass_rate,n\ngraphs,1,0.5,3\nsorting,0,0.5,3\nsearch,1,1.5,0\n';
    expect(problemsOf(text, 'csv', 'feedback.csv')).toEqual([
      'feedback.csv line 3: level must be a positive integer when present, got "0"',
      'feedback.csv line 4: pass_rate must be a number in [0, 1], got "1.5"',
      'feedback.csv line 4: n must be a positive integer, got "0"',
    ]);
  });

  it('parses the same rows from JSONL and CSV', () => {
    const jsonl =
      '{"skill":"graphs","env":"bfs-depth","level":2,"pass_rate":0.125,"n":16}\n{"env":"x1","pass_rate":0.75,"n":4}\n';
    const csv = 'pass_rate,n,skill,env,level\n0.125,16,graphs,bfs-depth,2\n0.75,4,,x1,\n';
    expect(parseFeedback(csv, 'csv')).toEqual(parseFeedback(jsonl, 'jsonl'));
  });
});

describe('readFeedbackFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'envforge-feedback-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const row: FeedbackRow = { skill: 'graphs', passRate: 0.5, n: 10 };

  it.each<[string, string]>([
    ['eval.jsonl', '{"skill":"graphs","pass_rate":0.5,"n":10}\n'],
    ['eval.ndjson', '{"skill":"graphs","pass_rate":0.5,"n":10}\n'],
    ['eval.json', '{"skill":"graphs","pass_rate":0.5,"n":10}\n'],
    ['EVAL.JSONL', '{"skill":"graphs","pass_rate":0.5,"n":10}\n'],
    ['eval.csv', 'skill,pass_rate,n\ngraphs,0.5,10\n'],
  ])('reads %s by its extension', async (name, text) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    await expect(readFeedbackFile(path)).resolves.toEqual([row]);
  });

  it.each(['eval.tsv', 'eval.txt', 'eval'])('rejects %s, naming the supported extensions', async (name) => {
    const path = join(dir, name);
    writeFileSync(path, 'x');
    await expect(readFeedbackFile(path)).rejects.toThrow(UsageError);
    await expect(readFeedbackFile(path)).rejects.toThrow(
      /unsupported extension .*\.jsonl, \.ndjson or \.json \(JSON Lines\) or \.csv/,
    );
  });

  it('names a missing file, a directory and an unreadable file', async () => {
    const missing = join(dir, 'nope.csv');
    await expect(readFeedbackFile(missing)).rejects.toThrow(new UsageError(`feedback file ${missing} does not exist`));
    const folder = join(dir, 'folder.jsonl');
    mkdirSync(folder);
    await expect(readFeedbackFile(folder)).rejects.toThrow(new UsageError(`feedback file ${folder} is a directory`));
    if (process.getuid?.() !== 0) {
      const locked = join(dir, 'locked.csv');
      writeFileSync(locked, 'skill,pass_rate,n\n');
      chmodSync(locked, 0o000);
      await expect(readFeedbackFile(locked)).rejects.toThrow(`feedback file ${locked} is not readable`);
    }
  });

  it('names the file path in parse problems', async () => {
    const path = join(dir, 'bad.csv');
    writeFileSync(path, 'skill,pass_rate,n\ngraphs,1.3,10\n');
    await expect(readFeedbackFile(path)).rejects.toThrow(
      `${path} line 2: pass_rate must be a number in [0, 1], got "1.3"`,
    );
  });

  it('maps extensions to formats', () => {
    expect(['a.jsonl', 'a.ndjson', 'a.json', 'a.CSV', 'dir.v2/a.csv'].map(feedbackFormat)).toEqual([
      'jsonl',
      'jsonl',
      'jsonl',
      'csv',
      'csv',
    ]);
  });
});

const stat = (name: string, passRate: number, n: number, rows = 1): FeedbackStat => ({ name, passRate, n, rows });

describe('summariseFeedback', () => {
  const envSkills = new Map<string, string[]>([
    ['bfs-depth', ['graphs', 'graph-traversal']],
    ['knapsack-small', ['dynamic-programming', 'optimization']],
  ]);

  it("weights by n, counts env rows toward each of the env's skills and skill rows directly", () => {
    const rows: FeedbackRow[] = [
      { skill: 'graphs', passRate: 0.1, n: 30 },
      { env: 'bfs-depth', level: 1, passRate: 0.6, n: 10 },
      { env: 'bfs-depth', level: 5, passRate: 0.2, n: 10 },
      { skill: 'dynamic-programming', env: 'knapsack-small', passRate: 0.4, n: 50 },
      { env: 'knapsack-small', passRate: 0.8, n: 50 },
    ];
    const summary = summariseFeedback(rows, envSkills);
    const expected = {
      skills: [
        // 0.4·50 + 0.8·50 over 100
        stat('dynamic-programming', 0.6, 100, 2),
        // 0.6·10 + 0.2·10 over 20
        stat('graph-traversal', 0.4, 20, 2),
        // 0.1·30 + 0.6·10 + 0.2·10 over 50
        stat('graphs', 0.22, 50, 3),
        // the skill row names dynamic-programming only; the env-only row reaches optimization
        stat('optimization', 0.8, 50, 1),
      ],
      envs: [stat('bfs-depth', 0.4, 20, 2), stat('knapsack-small', 0.6, 100, 2)],
      unknownEnvs: [],
      unknownSkills: [],
    };
    expect(summary.skills.map((s) => s.name)).toEqual(expected.skills.map((s) => s.name));
    for (const [i, s] of summary.skills.entries()) {
      expect(s.n).toBe(expected.skills[i]?.n);
      expect(s.rows).toBe(expected.skills[i]?.rows);
      expect(s.passRate).toBeCloseTo(expected.skills[i]?.passRate as number, 12);
    }
    expect(summary.envs.map((e) => [e.name, e.n, e.rows])).toEqual(expected.envs.map((e) => [e.name, e.n, e.rows]));
    expect(summary.envs[0]?.passRate).toBeCloseTo(0.4, 12);
    expect(summary.envs[1]?.passRate).toBeCloseTo(0.6, 12);
    expect(summary.unknownEnvs).toEqual([]);
    expect(summary.unknownSkills).toEqual([]);
  });

  it('lists environments it cannot map to skills and skills outside the taxonomy and the library', () => {
    const summary = summariseFeedback(
      [
        { env: 'ghost-env', passRate: 0.3, n: 10 },
        { skill: 'graphz', passRate: 0.3, n: 10 },
        { skill: 'custom-skill', passRate: 0.3, n: 10 },
        { skill: 'arithmetic', passRate: 0.3, n: 10 },
      ],
      new Map([['mine', ['custom-skill']]]),
    );
    expect(summary.envs.map((e) => e.name)).toEqual(['ghost-env']);
    expect(summary.skills.map((s) => s.name)).toEqual(['arithmetic', 'custom-skill', 'graphz']);
    expect(summary.unknownEnvs).toEqual(['ghost-env']);
    expect(summary.unknownSkills).toEqual(['graphz']);
  });

  it('does not count an env row twice toward a skill its meta repeats', () => {
    const summary = summariseFeedback([{ env: 'e', passRate: 0.5, n: 10 }], new Map([['e', ['graphs', 'graphs']]]));
    expect(summary.skills).toEqual([stat('graphs', 0.5, 10)]);
  });

  it('is deterministic: the same rows in any order give the same summary, sorted by name', () => {
    const rows: FeedbackRow[] = [
      { skill: 'sorting', passRate: 0.5, n: 4 },
      { env: 'bfs-depth', passRate: 0.25, n: 8 },
      { skill: 'arithmetic', passRate: 1, n: 2 },
      { env: 'knapsack-small', passRate: 0.5, n: 16 },
      { skill: 'graphs', passRate: 0, n: 8 },
    ];
    const forward = summariseFeedback(rows, envSkills);
    const backward = summariseFeedback([...rows].reverse(), new Map([...envSkills].reverse()));
    expect(backward).toEqual(forward);
    expect(JSON.stringify(summariseFeedback(rows, envSkills))).toBe(JSON.stringify(forward));
    expect(forward.skills.map((s) => s.name)).toEqual([
      'arithmetic',
      'dynamic-programming',
      'graph-traversal',
      'graphs',
      'optimization',
      'sorting',
    ]);
    expect(forward.skills.find((s) => s.name === 'graphs')).toEqual(stat('graphs', 0.125, 16, 2));
  });

  it('builds envSkills from library records, the newest version of each name', () => {
    const record = (name: string, version: number, skills: string[]) => ({
      name,
      version,
      meta: { name, title: 't', description: 'd', skills, levels: 5 },
    });
    expect([
      ...envSkillsOf([
        record('a', 1, ['graphs']),
        record('a', 2, ['trees']),
        record('b', 3, ['sorting']),
        record('a', 1, ['logic']),
      ]),
    ]).toEqual([
      ['a', ['trees']],
      ['b', ['sorting']],
    ]);
  });
});

describe('weakSkills', () => {
  const skills = [
    stat('zero', 0, 100),
    stat('tiny', 0.02, 100),
    stat('just-above-low', 0.021, 100),
    stat('b-weak', 0.3, 50),
    stat('a-weak', 0.3, 50),
    stat('weakest', 0.05, 20),
    stat('just-below-high', 0.499, 30),
    stat('at-high', 0.5, 30),
    stat('middling', 0.7, 30),
    stat('at-saturation', 0.9, 30),
    stat('solved', 1, 30),
    stat('few-samples', 0.3, 19),
  ];

  it('picks low < rate < high with n ≥ minN, by rate then name; lists unreachable, saturated and undersampled', () => {
    const frontier = weakSkills({ skills });
    expect(frontier.weak.map((s) => s.name)).toEqual([
      'just-above-low',
      'weakest',
      'a-weak',
      'b-weak',
      'just-below-high',
    ]);
    expect(frontier.unreachable.map((s) => s.name)).toEqual(['zero', 'tiny']);
    expect(frontier.saturated.map((s) => s.name)).toEqual(['at-saturation', 'solved']);
    expect(frontier.undersampled.map((s) => s.name)).toEqual(['few-samples']);
    expect(frontier.thresholds).toEqual({ low: 0.02, high: 0.5, saturatedAt: 0.9, minN: 20 });
    // at-high and middling are learnable: in no list
    const listed = new Set(
      [...frontier.weak, ...frontier.unreachable, ...frontier.saturated, ...frontier.undersampled].map((s) => s.name),
    );
    expect(skills.filter((s) => !listed.has(s.name)).map((s) => s.name)).toEqual(['at-high', 'middling']);
  });

  it.each<[string, Parameters<typeof weakSkills>[1], string[]]>([
    ['a higher low', { low: 0.1 }, ['a-weak', 'b-weak', 'just-below-high']],
    [
      'a higher high',
      { high: 0.75 },
      ['just-above-low', 'weakest', 'a-weak', 'b-weak', 'just-below-high', 'at-high', 'middling'],
    ],
    ['a lower high', { high: 0.3 }, ['just-above-low', 'weakest']],
    ['a larger minN', { minN: 50 }, ['just-above-low', 'a-weak', 'b-weak']],
    ['minN 0', { minN: 0 }, ['just-above-low', 'weakest', 'a-weak', 'b-weak', 'few-samples', 'just-below-high']],
  ])('honours %s', (_, options, weak) => {
    expect(weakSkills({ skills }, options).weak.map((s) => s.name)).toEqual(weak);
  });

  it('is deterministic whatever the input order', () => {
    const reversed = weakSkills({ skills: [...skills].reverse() });
    expect(reversed).toEqual(weakSkills({ skills }));
  });

  it.each<[string, Parameters<typeof weakSkills>[1], RegExp]>([
    ['low ≥ high', { low: 0.5, high: 0.5 }, /low \(0\.5\) must be below high \(0\.5\)/],
    ['high above saturation', { high: 0.95 }, /high \(0\.95\) must not be above saturatedAt \(0\.9\)/],
    ['low negative', { low: -0.1 }, /low threshold must be a number in \[0, 1\], got -0\.1/],
    ['high NaN', { high: Number.NaN }, /high threshold must be a number in \[0, 1\]/],
    ['minN negative', { minN: -1 }, /minN must be a non-negative number, got -1/],
  ])('rejects %s', (_, options, message) => {
    expect(() => weakSkills({ skills }, options)).toThrow(UsageError);
    expect(() => weakSkills({ skills }, options)).toThrow(message);
  });

  it('works end to end from a CSV file to the frontier', () => {
    const csv =
      'env,skill,level,pass_rate,n\nbfs-depth,,1,0.3,20\nbfs-depth,,2,0.1,20\n,sorting,,0.95,40\n,logic,,0,40\n';
    const summary = summariseFeedback(
      parseFeedback(csv, 'csv', 'eval.csv'),
      new Map([['bfs-depth', ['graphs', 'graph-traversal']]]),
    );
    const frontier = weakSkills(summary);
    expect(frontier.weak.map((s) => [s.name, s.n])).toEqual([
      ['graph-traversal', 40],
      ['graphs', 40],
    ]);
    expect(frontier.weak[0]?.passRate).toBeCloseTo(0.2, 12);
    expect(frontier.unreachable.map((s) => s.name)).toEqual(['logic']);
    expect(frontier.saturated.map((s) => s.name)).toEqual(['sorting']);
  });
});
