// Recorded replies replayed against today's prompts: each agent (architect for each kind of batch,
// generator, repair, reviewer) renders its prompt, the real openai SDK sends it to a stand-in server, and
// the stand-in answers with what a model once answered (tests/fixtures/transcripts/replies.json). A prompt
// or parser change that breaks reading those answers fails here, in both prompt profiles.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { architectOutputSchema, toEnvSpec } from '../agents/architect-schema.js';
import { reply } from '../agents/llm/fake.js';
import { createOpenAiClient } from '../agents/llm/openai.js';
import { generateModule, llmReviewer, proposeSpecs, repairModule } from '../agents/llm-author.js';
import { PROMPT_PROFILES, renderArchitect, renderGenerator, renderRepair, renderReviewer } from '../agents/prompts.js';
import type { RunKind } from '../agents/spec.js';
import type { KindName } from '../kinds/registry.js';
import { PACKAGE_ROOT } from '../contract/paths.js';
import { startFakeOpenAi, type FakeOpenAiServer } from './helpers/fake-openai.js';

interface Turn {
  turn: string;
  agent: 'architect' | 'generator' | 'repair' | 'reviewer';
  kind?: RunKind;
  n?: number;
  /** Generator turns: the spec, by its place in the first (mixed) architect reply. */
  spec?: number;
  source?: string;
  server?: 'no-json-schema';
  reply: string;
  expect: { specs?: Array<[string, KindName]>; module?: string; failed?: string[] };
}

const { turns } = JSON.parse(
  readFileSync(join(PACKAGE_ROOT, 'tests', 'fixtures', 'transcripts', 'replies.json'), 'utf8'),
) as { turns: Turn[] };
const file = (path: string) => readFileSync(join(PACKAGE_ROOT, path), 'utf8');
const expand = (text: string) => text.replace(/\{\{module:([^}]+)\}\}/g, (_all, path: string) => file(path));
const specs = architectOutputSchema('mixed')
  .parse(JSON.parse((turns[0] as Turn).reply))
  .specs.map((s) => toEnvSpec(s));
const stats = {
  environments: 12,
  versions: 12,
  byStatus: { active: 12 },
  bySkill: { 'dynamic-programming': 2, graphs: 1 },
  byAuthor: { seed: 12 },
  levels: { min: 5, max: 10 },
  rejections: 0,
};
const report = {
  problems: [
    {
      stage: 'hack' as const,
      code: 'E_ACCEPTS_PERTURBED' as const,
      message: 'verify scored 1 for the reference with 7 changed to 8',
      evidence: { seed: 3, level: 2, score: 1 },
    },
  ],
};
const metaOf = (source: string) =>
  ({
    name: /name: '([a-z0-9-]+)'/.exec(source)?.[1] ?? 'x',
    title: 'T',
    description: 'D.',
    skills: ['tool-use'],
    levels: 5,
    ...(source.includes("kind: 'episodic'") ? { kind: 'episodic', maxTurns: 70, tools: [] } : {}),
  }) as never;
const samples = [
  {
    seed: 11,
    level: 1,
    prompt: 'Settle every open return request, then close the desk.',
    reference: '[{"tool":"get_request","args":{"id":"R-1234A"}},{"tool":"close_desk","args":{}}]',
    observations: ['R-1234A: kettle, bought 3 days ago, unopened, sale receipt.', 'The desk is closed.'],
  },
];

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAi();
});
afterAll(() => server?.close());

describe.each(PROMPT_PROFILES)("recorded replies against today's %s prompts", (profile) => {
  it.each(turns.map((t) => [t.turn, t] as const))('%s', async (_name, turn) => {
    const before = server.requests.length;
    if (turn.server === 'no-json-schema')
      server.push(reply.status(400, 'response_format json_schema is not supported by this server'));
    server.push(reply.text(expand(turn.reply)));
    const client = createOpenAiClient({
      model: 'recorded-model',
      baseUrl: server.baseUrl,
      apiKey: 'none',
      cache: false,
    });
    let rendered: string;
    if (turn.agent === 'architect') {
      const input = { stats, n: turn.n ?? 1, kind: turn.kind ?? 'mixed' };
      const out = await proposeSpecs(client, input, {}, profile);
      rendered = renderArchitect(input, { profile }).text;
      expect(out.specs.map((s) => [s.name, s.kind])).toEqual(turn.expect.specs);
      expect(out.dropped).toEqual([]);
    } else if (turn.agent === 'generator') {
      const spec = specs[turn.spec ?? 0]!;
      const out = await generateModule(client, spec, {}, profile);
      rendered = renderGenerator({ spec }, { profile }).text;
      expect(out.problem).toBeUndefined();
      expect(out.source?.trim()).toBe(file(turn.expect.module as string).trim());
    } else if (turn.agent === 'repair') {
      const source = file(turn.source as string);
      const kind = (turn.kind ?? 'single') as KindName;
      const out = await repairModule(client, source, report as never, {}, kind, profile);
      rendered = renderRepair({ source, report, kind }, { profile }).text;
      expect(out.source?.trim()).toBe(file(turn.expect.module as string).trim());
    } else {
      const source = file(turn.source as string);
      const input = { source, meta: metaOf(source), samples };
      const out = await llmReviewer(client, {}, profile).review(input);
      rendered = renderReviewer(input, { profile }).text;
      expect(out.problems.map((p) => (p.evidence as { check: string }).check)).toEqual(turn.expect.failed);
      expect(out.ok).toBe(turn.expect.failed?.length === 0);
    }
    // What went over the wire is today's prompt, as rendered, in one user message.
    const sent = server.requests
      .slice(before)
      .map((r) => r.body as { messages: Array<{ role: string; content: string }> });
    expect(sent.at(-1)?.messages.find((m) => m.role === 'user')?.content).toBe(rendered);
    expect(server.requests.length - before).toBe(turn.server === 'no-json-schema' ? 2 : 1);
  });
});
