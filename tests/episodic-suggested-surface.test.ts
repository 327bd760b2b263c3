// Two dimensions of the unused surface (issue 28, redteam-trust5 G4 and redteam-trust4 F8): the values any text the
// agent can see names for a free-string decision (ranked, screened against an unknown value, then played as
// blankets), and an unused tool composed with the reference's own plan on the entities it leaves. Pure builders here;
// the fixtures' verdicts (hacks rejected, twins admitted) are in redteam-trust4.test.ts.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { episodicSurface } from '../validators/checks/episodic-surface.js';
import type { EpisodicContext } from '../validators/checks/episodic.js';
import { composedLogs, restrictedPlan } from '../validators/episodic/surface-compose.js';
import { surfaceLogs, usedSurface } from '../validators/episodic/surface.js';
import { DEFAULT_EPISODIC_OPTIONS } from '../validators/options-episodic.js';
import {
  callWith,
  freeArgs,
  idTest,
  PLACEHOLDER,
  suggestedLog,
  suggestedWords,
  surveyLog,
  treatedApart,
} from '../validators/episodic/suggested.js';

const tool = (name: string, properties: Record<string, unknown>, required: string[] = []) => ({
  name,
  description: name,
  parameters: { type: 'object', properties, required, additionalProperties: false },
});
const META = {
  name: 'm',
  title: 'm',
  description: 'Route each ticket.',
  skills: [],
  levels: 1,
  kind: 'episodic',
  maxTurns: 20,
  tools: [
    tool('list', {}),
    tool('read', { id: { type: 'string' } }, ['id']),
    tool('route', { id: { type: 'string' }, queue: { type: 'string', maxLength: 12 } }, ['id', 'queue']),
    tool('merge', { id: { type: 'string' }, into: { type: 'string' } }, ['id', 'into']),
    tool('close', {}),
  ],
} as unknown as EpisodicMeta;
const A = (name: string, args: Record<string, unknown> = {}) => ({ tool: name, args });
const rollout = (actions: unknown[], prompt = ''): Rollout => ({
  ok: true,
  seed: 1,
  level: 1,
  prompt,
  actions,
  rejected: [],
  end: 'done',
  turns: actions.length,
  errors: 0,
  score: 1,
  maxStateChars: 0,
  ms: [],
});
const REF = rollout([
  A('read', { id: 'T1' }),
  A('route', { id: 'T1', queue: 'billing' }),
  A('read', { id: 'T2' }),
  A('route', { id: 'T2', queue: 'shipping' }),
  A('read', { id: 'T3' }),
  A('route', { id: 'T3', queue: 'billing' }),
  A('close'),
]);
const USED = usedSurface([REF]);

describe('the words any text the agent sees suggests for a free string', () => {
  it('are quoted words, described words, words beside the name, then beside its values, the rarest first', () => {
    const words = suggestedWords(
      'queue',
      'billing or shipping (manual is closed)',
      [['Queues: billing, shipping, priority.', 'Never use "triage".']],
      ['billing', 'shipping'],
      8,
    );
    expect(words.slice(0, 4)).toEqual(['triage', 'manual', 'closed', 'priority']);
    // The values sent are never suggested; a function word is, last (redteam-trust7 I6: no lexical filter).
    const sentOnly = suggestedWords('queue', 'billing or shipping', [], ['billing', 'shipping'], 4);
    expect(sentOnly).toEqual(['or']);
  });
  it("take the words beside the argument's own name in a reply the reference never sees", () => {
    expect(
      suggestedWords('queue', '', [['Open tickets: T1, T2. Notice: the sorter queue is closed.']], ['billing'], 2),
    ).toEqual(['sorter', 'closed']);
  });
  it('rank a word every episode shows once (a notice) before the words of every reply and of one entity', () => {
    const episode = (text: string) => [
      'T1 routed to billing.',
      'T2 routed to billing.',
      `T1: "${text}"`,
      'No queue zqxwv. Legacy desk: the sort-er.',
    ];
    const words = suggestedWords(
      'queue',
      '',
      [episode('my parcel is late'), episode('my invoice is wrong'), episode('the app crashes')],
      ['billing'],
      20,
      [],
      ['T1', 'T2'],
    );
    // The hyphen taken out too ("sort-er" is sent as "sorter"); never the placeholder or an id.
    for (const own of ['parcel', 'invoice', 'crashes'])
      expect(words.indexOf('sorter')).toBeLessThan(words.indexOf(own));
    expect(words.indexOf('sort-er')).toBeGreaterThanOrEqual(0);
    expect(words).not.toContain(PLACEHOLDER);
    expect(words.some((w) => /T[12]/.test(w))).toBe(false);
  });
  it('leave out ids by what they are in this world, never a word for holding a digit (redteam-trust6 H1)', () => {
    const episode = (id: string) => [`Open: ${id}, TK-${id.slice(3, 5)}00. Notice: the triage2 queue is closed.`];
    const groups = [['Route each ticket.'], episode('TK-4821'), episode('TK-1234'), episode('TK-5678')];
    const words = suggestedWords('queue', '', groups, ['billing'], 50, [], ['TK-4821', 'TK-1234']);
    // Sent ids, their forms and words of their shape one episode shows are ids; a word every episode shows is not.
    expect(words).toContain('triage2');
    for (const id of ['TK-4821', 'TK4821', 'TK-5678', 'TK5678', 'TK-4800']) expect(words).not.toContain(id);
    const isId = idTest([['Queues: v1, v2, TK0000.'], ...groups.slice(1)], ['TK-4821']);
    expect(['v1', 'tier2', 'TK0000'].map(isId)).toEqual([false, false, false]);
    // A shape whose words are new in each episode is an id's, even where no reference sends one of it.
    expect(idTest([[], ['Ref Q-17 ok'], ['Ref Q-42 ok'], ['Ref Q-93 ok']], [])('Q-42')).toBe(true);
    expect(idTest([[], ['Ref Q-17 ok'], ['Ref Q-17 ok']], [])('Q-17')).toBe(false);
    expect(idTest([['Ref Q-17 ok'], ['Ref Q-42 ok'], ['Ref Q-93 ok']], [])('Q-17')).toBe(false);
  });
  it('leave no token out by its letters: a function word, a digit or sign first, one letter (I6)', () => {
    const text = 'Notice: the "any" queue, the 2nd-line queue, queue Z and @night (old models) are closed.';
    const words = suggestedWords('queue', '', [[text]], ['billing'], 50);
    for (const w of ['any', '2nd-line', 'Z', '@night']) expect(words).toContain(w);
    // A function word quoted ranks first; one beside the name ranks after its tier's other words, never dropped.
    expect(words[0]).toBe('any');
    expect(words.indexOf('2nd-line')).toBeLessThan(words.indexOf('the'));
    expect(words.indexOf('the')).toBeGreaterThanOrEqual(0);
    // Elsewhere a function word ranks after every other word, so the cap cuts it first.
    const plain = suggestedWords('queue', 'or pick one', [['alpha beta']], ['billing'], 3);
    expect(plain).toEqual(['pick', 'alpha', 'beta']);
  });
  it('join two adjacent words last (a value split by a space) and respect the cap', () => {
    const words = suggestedWords('queue', '', [['the sort er desk']], [], 50);
    expect(words).toContain('sorter');
    expect(words.indexOf('sorter')).toBeGreaterThan(words.indexOf('desk'));
    expect(suggestedWords('queue', '', [['alpha beta gamma delta']], [], 2)).toHaveLength(2);
  });
});

describe('the survey and the screen of a suggested word', () => {
  const args = freeArgs(META, [REF], USED);
  it('take the free-string decision arguments, not the entity or the finish', () => {
    expect(args.map((a) => `${a.tool}.${a.arg}`)).toEqual(['route.queue']);
  });
  it('survey the listings, the reads and the decision sent an unknown value (its error message)', () => {
    const log = surveyLog(META, REF, args, [], 12);
    expect(log[0]).toEqual(A('list'));
    expect(log.at(-1)).toEqual(A('route', { id: 'T1', queue: PLACEHOLDER }));
    expect(log.length).toBeLessThanOrEqual(12);
  });
  it("send the unknown value in the reference's first decision, after the calls before it", () => {
    expect(callWith(REF, args[0] as (typeof args)[0], 'sorter')).toEqual({
      prefix: [A('read', { id: 'T1' })],
      call: A('route', { id: 'T1', queue: 'sorter' }),
    });
  });
  it('keep a word the world reads as a decision, not one it refuses or stores as sent', () => {
    const unknown = '{"t":[{"id":"T1","routed":null}],"sent":"zqxwv"}';
    expect(treatedApart('sorter', '{"t":[{"id":"T1","routed":"billing"}],"sent":"sorter"}', unknown)).toBe(true);
    expect(treatedApart('Sorter', '{"t":[{"id":"T1","routed":null}],"sent":"sorter"}', unknown)).toBe(false);
    expect(treatedApart('sorter', undefined, unknown)).toBe(false);
  });
  it('play a kept word as a blanket on every entity, then the finish', () => {
    expect(suggestedLog(META, REF, args[0] as (typeof args)[0], 'sorter', USED.values)?.actions).toEqual([
      A('route', { id: 'T1', queue: 'sorter' }),
      A('route', { id: 'T2', queue: 'sorter' }),
      A('route', { id: 'T3', queue: 'sorter' }),
      A('close'),
    ]);
  });
});

describe('an unused tool composed with the plan on what it leaves', () => {
  const logs = composedLogs(META, REF, USED, 12, 6);
  it('merges every entity but the first into it, then plays the reference on the first, then finishes', () => {
    const butOne = logs.find((l) => l.policy.includes('every entity but one'));
    expect(butOne?.policy).toContain('(the entity kept)');
    expect(butOne?.actions).toEqual([
      A('merge', { id: 'T2', into: 'T1' }),
      A('merge', { id: 'T3', into: 'T1' }),
      A('read', { id: 'T1' }),
      A('route', { id: 'T1', queue: 'billing' }),
      A('close'),
    ]);
    expect(butOne?.control).toEqual([A('read', { id: 'T1' }), A('route', { id: 'T1', queue: 'billing' }), A('close')]);
  });
  it('applies it to every entity too, then the calls that name none; the used tools are left alone', () => {
    expect(logs.find((l) => l.policy.includes('on every entity,'))?.control).toEqual([A('close')]);
    expect(logs.every((l) => l.policy.startsWith('merge '))).toBe(true);
  });
  it('drops the calls naming a removed entity whatever its case or spacing', () => {
    expect(
      restrictedPlan(rollout([A('read', { id: ' t2 ' }), A('read', { id: 'T1' }), A('close')]), new Set(['t2'])),
    ).toEqual([A('read', { id: 'T1' }), A('close')]);
  });
});

describe('an unused optional argument of a used tool composed with the plan (redteam-trust6 H4)', () => {
  // route is used (id, queue sent); its duplicate_of never is: the (tool, argument) pair is unused like a tool.
  const meta = {
    ...META,
    tools: META.tools.map((t) =>
      t.name === 'route'
        ? tool(
            'route',
            { id: { type: 'string' }, queue: { type: 'string', maxLength: 12 }, duplicate_of: { type: 'string' } },
            ['id', 'queue'],
          )
        : t,
    ),
  } as unknown as EpisodicMeta;
  const logs = composedLogs(meta, REF, USED, 12, 6);
  it('sets it to the entity kept on every other entity, then plays the reference on the entity kept', () => {
    const dup = logs.find((l) => l.policy.startsWith('route ') && l.policy.includes('every entity but one'));
    expect(dup?.policy).toContain('"duplicate_of":"(the entity kept)"');
    expect(dup?.actions).toEqual([
      A('route', { id: 'T2', queue: 'billing', duplicate_of: 'T1' }),
      A('route', { id: 'T3', queue: 'billing', duplicate_of: 'T1' }),
      A('read', { id: 'T1' }),
      A('route', { id: 'T1', queue: 'billing' }),
      A('close'),
    ]);
  });
  it('sends each call of the pair twice in a row where asked (a flag, then the act: redteam-trust7 I3)', () => {
    const twice = composedLogs(meta, REF, USED, 12, 6, 2);
    const dup = twice.find((l) => l.policy.startsWith('route ') && l.policy.includes('every entity but one'));
    expect(dup?.policy).toContain('2 times');
    expect(dup?.actions.slice(0, 4)).toEqual([
      A('route', { id: 'T2', queue: 'billing', duplicate_of: 'T1' }),
      A('route', { id: 'T2', queue: 'billing', duplicate_of: 'T1' }),
      A('route', { id: 'T3', queue: 'billing', duplicate_of: 'T1' }),
      A('route', { id: 'T3', queue: 'billing', duplicate_of: 'T1' }),
    ]);
    expect(dup?.control).toEqual([A('read', { id: 'T1' }), A('route', { id: 'T1', queue: 'billing' }), A('close')]);
    expect(composedLogs({ ...meta, maxTurns: 6 }, REF, USED, 12, 6, 2).some((l) => l.actions.length > 6)).toBe(false);
  });
  it("takes the pairs' assignments in turn, so the unused tool keeps its place under the cap", () => {
    expect(composedLogs(meta, REF, USED, 12, 2).map((l) => l.policy.split(' ')[0])).toEqual(['route', 'merge']);
  });
});

describe('the unused-surface check', () => {
  it('plays once a composed log the surface already plays (the tool on every entity, the plan left the finish)', () => {
    // An archive needs no value nobody sends: on every entity, then the calls that name none (the finish), it is the
    // surface's own log; its control (the plan left) is the finish alone, the surface's control.
    const meta = { ...META, tools: [...META.tools, tool('archive', { id: { type: 'string' } }, ['id'])] };
    const memos = new Map<string, unknown>();
    const ctx = {
      meta,
      refs: [REF],
      options: { ...DEFAULT_EPISODIC_OPTIONS, probedPerLevel: 1 },
      adversaryEpisodes: () => [0],
      shared: (key: string, make: () => unknown) => memos.get(key) ?? (memos.set(key, make()), memos.get(key)),
    } as unknown as EpisodicContext;
    const archive = surfaceLogs(meta, REF, usedSurface([REF]), 12, 8).find((l) => l.policy.startsWith('archive'));
    const archived = composedLogs(meta, REF, usedSurface([REF]), 12, 6).map((l) => JSON.stringify(l.actions));
    expect(archived).toContain(JSON.stringify(archive?.actions));
    const requests = (episodicSurface.plan(ctx)?.requests ?? []).map((q) => JSON.stringify(q));
    expect(requests.filter((q) => q.includes('"archive"')).length).toBeGreaterThan(1);
    expect(new Set(requests).size).toBe(requests.length);
  });
});
