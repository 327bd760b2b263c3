// Red team rtv (around the sandbox): module text reaching a reader's grammar by a route the encoders miss.
// Each `it.fails` is an open finding of tests/fixtures/redteam-rtv/FINDINGS.md, named by its id.
import { describe, expect, it } from 'vitest';
import { CostLedger } from '../agents/llm/cost.js';
import type { EnvSpec } from '../agents/spec.js';
import { buildReport, reportMarkdown } from '../pipeline/report.js';

/** What a rejected module's own error text can say (one line, no controls: everything the contract allows). */
const HOSTILE = 'x <img src="https://attacker.example/pixel.png?batch"> ![ok](https://attacker.example/a.png) [✓ admitted: see the fix](https://attacker.example/fix) <script>alert(1)</script> <!--';

const spec = (name: string): EnvSpec => ({ name, title: name, skills: ['counting'], taskIdea: 'idea', answerFormat: 'N', difficultyScaling: 'grows', whyNew: 'new' });

describe('rtv-9: the batch report writes a rejected module\'s error text into Markdown as markup', () => {
  it.fails('rtv-9: a guest error message in batches/<id>.md is prose (no HTML element, image, link or comment)', () => {
    const report = buildReport({
      batchId: 'b-rtv',
      stopReason: 'target reached',
      specs: [spec('gamma')],
      dropped: 0,
      modules: new Map([['gamma/0', { source: 'g0', purpose: 'generator' as const }]]),
      verdicts: new Map([['gamma/0', { verdict: 'reject', codes: ['E_THROWN'], firstFailedStage: 'execution', firstProblem: { code: 'E_THROWN', stage: 'execution', message: `generate threw Error: ${HOSTILE}` } }]]),
      outcomes: [{ spec: 'gamma', status: 'rejected', attempts: 1 }],
      failures: [],
      ledger: new CostLedger().snapshot(),
      wallMs: 1,
    });
    const markdown = reportMarkdown(report);
    const line = markdown.split('\n').find((l) => l.includes('generate threw')) as string;
    // A Markdown reader (GitHub, an IDE preview, a CI summary) renders these as an element, an image, a link, a comment.
    expect(line).not.toMatch(/<img|<script|<!--|!\[ok\]\(|\]\(https:/);
  });
});
