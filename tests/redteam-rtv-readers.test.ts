// Red team rtv (around the sandbox): module text reaching a reader's grammar by a route the encoders miss.
// Each test is a finding of tests/fixtures/redteam-rtv/FINDINGS.md, named by its id (closed: see its fix there).
import { describe, expect, it } from 'vitest';
import { CostLedger } from '../agents/llm/cost.js';
import type { EnvSpec } from '../agents/spec.js';
import { markdownLine, markdownText } from '../contract/text.js';
import { nightMarkdown } from '../nightly/report.js';
import { buildReport } from '../pipeline/report.js';
import { reportMarkdown } from '../pipeline/report-markdown.js';

/**
 * What a CommonMark/GFM reader could read as markup in `markdown`: an unescaped ASCII punctuation mark other
 * than the ones that start nothing mid-line (`-`, `_` inside a word), an HTML element, comment or entity
 * written raw. Every backslash-escaped or entity-encoded character is inert.
 */
function markupIn(markdown: string): string[] {
  const inert = markdown
    .replace(/\\[!-/:-@[-`{-~]|&(?:lt|gt|amp);/g, '')
    .replace(/[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)+/g, 'w');
  return [...inert.matchAll(/[!-/:-@[-`{-~]/g)].map((m) => m[0]);
}

/** What a rejected module's own error text can say (one line, no controls: everything the contract allows). */
const HOSTILE =
  'x <img src="https://attacker.example/pixel.png?batch"> ![ok](https://attacker.example/a.png) [✓ admitted: ' +
  'see the fix](https://attacker.example/fix) <script>alert(1)</script> <!--';

const spec = (name: string): EnvSpec => ({
  name,
  title: name,
  skills: ['counting'],
  taskIdea: 'idea',
  answerFormat: 'N',
  difficultyScaling: 'grows',
  whyNew: 'new',
});

describe("rtv-9: the batch report writes a rejected module's error text into Markdown as markup", () => {
  it('rtv-9: a guest error message in batches/<id>.md is prose (no HTML element, image, link or comment)', () => {
    const report = buildReport({
      batchId: 'b-rtv',
      stopReason: 'target reached',
      specs: [spec('gamma')],
      dropped: 0,
      modules: new Map([['gamma/0', { source: 'g0', purpose: 'generator' as const }]]),
      verdicts: new Map([
        [
          'gamma/0',
          {
            verdict: 'reject',
            codes: ['E_THROWN'],
            firstFailedStage: 'execution',
            firstProblem: { code: 'E_THROWN', stage: 'execution', message: `generate threw Error: ${HOSTILE}` },
          },
        ],
      ]),
      outcomes: [{ spec: 'gamma', status: 'rejected', attempts: 1 }],
      failures: [],
      ledger: new CostLedger().snapshot(),
      wallMs: 1,
    });
    const markdown = reportMarkdown(report);
    const line = markdown.split('\n').find((l) => l.includes('generate threw')) as string;
    // A Markdown reader (GitHub, an IDE preview, a CI summary) renders these as an element, an image, a link, a
    // comment.
    expect(line).not.toMatch(/<img|<script|<!--|!\[ok\]\(|\]\(https:/);
    // The whole message, as the list item holds it, has no markup character left unescaped.
    expect(markupIn(markdownLine(`generate threw Error: ${HOSTILE}`))).toEqual([]);
    expect(line).toContain(markdownLine(`generate threw Error: ${HOSTILE}`));
  });

  it("rtv-9 (another writer): the nightly report writes a failed step's message, names and skills as prose", () => {
    const markdown = nightMarkdown({
      night: 'n1',
      startedAt: 't0',
      finishedAt: null,
      failed: { step: 'batch', message: HOSTILE },
      steps: {
        retire: {
          source: 'file',
          retireAt: 0.9,
          retired: [{ name: `[x](https://attacker.example) <b>`, passRate: 1, n: 10 }],
        },
        batch: {
          batchId: 'b',
          feedback: '<i>f</i>',
          weakSkills: ['*bold*'],
          admitted: 0,
          rejected: 0,
          costUsd: 0,
          perAdmittedUsd: null,
          stopReason: '`code`',
          frontier: null,
        },
      },
    });
    expect(markdown).not.toMatch(/<img|<script|<!--|<b>|<i>|!\[ok\]\(|\]\(https:|\*bold\*|`code`/);
  });

  it(
    'rtv-9: markdownText leaves no markup character unescaped in any ASCII text, and names ' +
      'and codes read as they are',
    () => {
      let all = '';
      for (let c = 0; c < 128; c++) all += String.fromCharCode(c);
      expect(markupIn(markdownText(all + HOSTILE))).toEqual([]);
      expect(markdownText(all)).not.toMatch(/[\u0000-\u001f\u007f]/);
      expect([markdownText('E_THROWN'), markdownText('plus-one'), markdownText('_x_'), markdownText('a__b')]).toEqual([
        'E_THROWN',
        'plus-one',
        '\\_x\\_',
        'a\\_\\_b',
      ]);
    },
  );
});
