// What the agents' prompts cost: one small `envforge run` batch (two single-turn specs and one episodic,
// known-good modules, a passing review) replayed against a stand-in OpenAI server that plays OpenAI's
// automatic prefix caching, through one or two envforge builds side by side (`--baseline CLI` names the
// other build's dist/cli/main.js); the input, cached input and dollars per agent are counted at the server.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../contract/paths.js';
import { seedLibrary } from '../library/maintenance.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';

/** gpt-4.1's list prices, dollars per million tokens: input, cached input, output. */
const PRICE = { input: 2, cached: 0.5, output: 8 };
const fixture = (dir: string, file: string) => readFileSync(join(PACKAGE_ROOT, 'tests', 'fixtures', dir, file), 'utf8');

const single = (name: string, skills: string[], idea: string) => ({
  kind: 'single',
  name,
  title: `The ${name} task`,
  skills,
  taskIdea: idea,
  answerFormat: 'One integer as <answer>N</answer>.',
  difficultyScaling: 'Level 1 has 3 small inputs; the top level has 12 large ones.',
  whyNew: 'Nothing in the library trains it.',
  episodic: null,
});

/** The replayed batch: the architect's specs and, per spec name, the module its generator writes. */
const SPECS = [
  single(
    'roman-numeral-sum',
    ['arithmetic', 'parsing'],
    'Add up a list of Roman numerals and give the total as an integer.',
  ),
  single(
    'coin-change-ways',
    ['dynamic-programming', 'counting'],
    'Count the ways to make an amount from given coin denominations.',
  ),
  {
    ...single(
      'hotel-checkin',
      ['tool-use', 'policy-following'],
      "Check in tonight's arrivals: give each a room by the stated policy through the front-desk tools.",
    ),
    kind: 'episodic',
    answerFormat: 'One tool call per turn; close_shift ends the episode.',
    episodic: {
      world:
        'Reservations (code, guest, room type, tier, accessibility) and rooms per floor (type, ' +
        'clean, vacant, accessible).',
      tools: [
        { name: 'list_arrivals', description: "List tonight's reservation codes.", parameters: [] },
        {
          name: 'get_reservation',
          description: 'Show one reservation.',
          parameters: [{ name: 'code', type: 'string', description: 'A reservation code such as R-4821.' }],
        },
        {
          name: 'list_rooms',
          description: "List one floor's rooms.",
          parameters: [{ name: 'floor', type: 'integer', description: 'A floor, 1 to 9.' }],
        },
        {
          name: 'assign_room',
          description: 'Give a reservation a room.',
          parameters: [
            { name: 'code', type: 'string', description: 'The reservation code.' },
            { name: 'room', type: 'integer', description: 'The room number.' },
          ],
        },
        { name: 'close_shift', description: 'End the shift.', parameters: [] },
      ],
      policy:
        'Booked type first; accessible rooms for accessibility requests; platinum guests get an ' +
        'upgrade when one is free.',
      goal: 'Every arrival holds a room that the policy allows, and the shift is closed.',
      finishTool: 'close_shift',
    },
  },
];
const MODULES: Record<string, string> = {
  'roman-numeral-sum': fixture('candidates', 'good-roman-sum.js'),
  'coin-change-ways': fixture('candidates', 'good-coin-change-ways.js'),
  'hotel-checkin': fixture('episodic', 'good-hotel-checkin.js'),
};
/** Every check either reviewer version asks, passing (a schema ignores the keys it does not know). */
const CHECKS = [
  'promptUnambiguous',
  'formatStated',
  'verifierConsistent',
  'acceptsAllValid',
  'noLeak',
  'noShortcut',
  'goalStated',
  'toolsDescribed',
  'onlyThroughTools',
  'scoresState',
  'policyEnforced',
];

interface Tally {
  calls: number;
  chars: number;
  input: number;
  cached: number;
  output: number;
}
type Tallies = Record<string, Tally>;

const commonPrefix = (a: string, b: string): number => {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
};

/** The reply to one request, and which agent asked (by its schema, else by the rejected module a repair quotes). */
function answer(body: {
  messages: Array<{ content: string }>;
  response_format?: { json_schema?: { name?: string } };
}): { purpose: string; content: string } {
  const schema = body.response_format?.json_schema?.name;
  const text = body.messages.map((m) => m.content).join('\n');
  if (schema === 'architect_specs' || (!schema && /"specs"/.test(text) && /architect/.test(text)))
    return { purpose: 'architect', content: JSON.stringify({ specs: SPECS }) };
  if (schema?.includes('review') || (!schema && /review_checklist/.test(text)))
    return {
      purpose: 'reviewer',
      content: JSON.stringify({
        checks: Object.fromEntries(CHECKS.map((c) => [c, { ok: true, note: 'Holds at every level.' }])),
      }),
    };
  const name =
    Object.keys(MODULES).find((n) => text.includes(`\`${n}\``) || text.includes(`name: ${n}`)) ?? 'roman-numeral-sum';
  return {
    purpose: /The rejected module/.test(text) ? 'repair' : 'generator',
    content: `Here is the module.\n\n\`\`\`js\n${MODULES[name]}\`\`\`\n`,
  };
}

/**
 * The stand-in: OpenAI's wire format, four characters a token, prefix caching per response format in steps of 128 from
 * 1,024 tokens.
 */
async function standIn(): Promise<{ url: string; tallies: Tallies; close(): Promise<void> }> {
  const tallies: Tallies = {};
  const seen = new Map<string, string[]>();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const body = JSON.parse(raw);
      const { purpose, content } = answer(body);
      const prompt = (body.messages as Array<{ content: string }>).map((m) => m.content).join('\n');
      const input = Math.ceil(prompt.length / 4);
      const format = JSON.stringify(body.response_format ?? null);
      const earlier = seen.get(format) ?? [];
      const shared = Math.min(Math.floor(Math.max(0, ...earlier.map((p) => commonPrefix(p, prompt))) / 4), input);
      const cached = shared < 1024 ? 0 : Math.floor(shared / 128) * 128;
      seen.set(format, [...earlier, prompt]);
      const output = Math.ceil(content.length / 4);
      const t = (tallies[purpose] ??= { calls: 0, chars: 0, input: 0, cached: 0, output: 0 });
      t.calls++;
      t.chars += prompt.length;
      t.input += input;
      t.cached += cached;
      t.output += output;
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: `chatcmpl-${t.calls}`,
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [
            { index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null },
          ],
          usage: {
            prompt_tokens: input,
            completion_tokens: output,
            total_tokens: input + output,
            prompt_tokens_details: { cached_tokens: cached },
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    tallies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function runCli(
  cli: string,
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC|ENVFORGE)_/.test(k)),
    );
    const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const usd = (t: Tally) =>
  ((t.input - t.cached) * PRICE.input + t.cached * PRICE.cached + t.output * PRICE.output) / 1e6;

async function measure(
  label: string,
  cli: string,
  seeded: string,
  root: string,
  extra: string[],
): Promise<{ label: string; tallies: Tallies; admitted: string[]; reportCost: unknown }> {
  const library = join(root, `library-${label}`);
  cpSync(seeded, library, { recursive: true });
  const server = await standIn();
  try {
    const args = [
      'run',
      '--base-url',
      server.url,
      '--model',
      'gpt-4.1',
      '--kind',
      'mixed',
      '--target',
      '3',
      '--max-candidates',
      '3',
      '--concurrency',
      '1',
      '--repair-rounds',
      '1',
      '--no-cache',
      '--library',
      library,
      '--json',
      ...extra,
    ];
    const result = await runCli(cli, args, mkdtempSync(join(root, 'cwd-')));
    if (result.code !== 0)
      throw new Error(`${label}: envforge run exited ${result.code}: ${result.stderr.slice(-2000)}`);
    const report = JSON.parse(result.stdout) as { admitted: Array<{ name: string }>; cost: unknown };
    return {
      label,
      tallies: server.tallies,
      admitted: report.admitted.map((a) => a.name).sort(),
      reportCost: report.cost,
    };
  } finally {
    await server.close();
  }
}

function table(runs: Array<{ label: string; tallies: Tallies }>): string {
  const rows = [
    '| build | agent | calls | prompt chars | input tokens | cached | uncached | output | $ (gpt-4.1) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const run of runs) {
    const total: Tally = { calls: 0, chars: 0, input: 0, cached: 0, output: 0 };
    for (const [purpose, t] of Object.entries(run.tallies).sort()) {
      for (const k of Object.keys(total) as Array<keyof Tally>) total[k] += t[k];
      rows.push(
        `| ${run.label} | ${purpose} | ${t.calls} | ${t.chars} | ${t.input} | ${t.cached} | ` +
          `${t.input - t.cached} | ${t.output} | ${usd(t).toFixed(4)} |`,
      );
    }
    rows.push(
      `| ${run.label} | **all** | ${total.calls} | ${total.chars} | ${total.input} | ${total.cached} | ` +
        `${total.input - total.cached} | ${total.output} | ${usd(total).toFixed(4)} |`,
    );
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const flag = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const baseline = flag('--baseline');
  const extra = flag('--extra')?.split(' ').filter(Boolean) ?? [];
  const root = mkdtempSync(join(tmpdir(), 'envforge-prompt-tokens-'));
  const pool = new SandboxPool();
  try {
    const seeded = join(root, 'seeded');
    const library = SqliteLibrary.open(seeded, { create: true });
    await seedLibrary(library, pool);
    await library.close();
    const runs = [];
    if (baseline) runs.push(await measure('baseline', baseline, seeded, root, []));
    runs.push(await measure('this build', join(PACKAGE_ROOT, 'dist', 'cli', 'main.js'), seeded, root, extra));
    console.log(table(runs));
    for (const run of runs)
      console.log(
        `${run.label}: admitted ${run.admitted.join(', ') || '(none)'}; its report's cost: ` +
          `${JSON.stringify(run.reportCost)}`,
      );
  } finally {
    await pool.close();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
