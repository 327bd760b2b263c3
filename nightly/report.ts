// The nightly run's report: one JSON object with a section per step (written as each step finishes) and
// the same as Markdown for people, every value not its own through contract/text.ts's Markdown encoder.
import { markdownLine as md } from '../contract/text.js';

export interface NightReport {
  night: string;
  startedAt: string;
  finishedAt: string | null;
  /** The step that failed in the latest run, with its error (cleared when it succeeds). */
  failed?: { step: string; message: string };
  steps: {
    revalidate?: {
      validatorVersion: string;
      outcomes: Array<{ name: string; version: number; verdict: string; retired: boolean; codes: string[] }>;
    };
    retire?: { source: string; retireAt: number; retired: Array<{ name: string; passRate: number; n: number }> };
    batch?: {
      batchId: string;
      feedback: string;
      weakSkills: string[];
      admitted: number;
      rejected: number;
      costUsd: number;
      perAdmittedUsd: number | null;
      stopReason: string;
      frontier: unknown;
    };
    export?: { snapshots: Array<{ format: string; out: string; rows: number; envs: number }> };
  };
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

export function nightMarkdown(r: NightReport): string {
  const { revalidate, retire, batch, export: snapshot } = r.steps;
  const lines = [
    `# envforge nightly ${md(r.night, 80)}`,
    '',
    `started ${r.startedAt}, finished ${r.finishedAt ?? '(not yet)'}`,
    '',
  ];
  if (r.failed)
    lines.push(
      `**FAILED** in the ${md(r.failed.step, 80)} step: ${md(r.failed.message, 2_000)}`,
      '',
      'Run envforge nightly again (same --night) to retry: the finished steps are kept.',
      '',
    );
  lines.push('## 1. Revalidate', '');
  if (revalidate) {
    lines.push(
      revalidate.outcomes.length
        ? `${revalidate.outcomes.length} environments admitted by an older validator, revalidated with ` +
            `${md(revalidate.validatorVersion, 80)}:`
        : `every active environment was admitted by validator ${md(revalidate.validatorVersion, 80)}` +
            `: nothing to revalidate`,
    );
    for (const o of revalidate.outcomes)
      lines.push(
        `- ${md(o.name, 120)}@${o.version}: ${md(o.verdict, 40)}` +
          `${o.retired ? ` (retired: ${o.codes.map((c) => md(c, 80)).join(', ')})` : ''}`,
      );
  }
  lines.push('', '## 2. Retire saturated environments', '');
  if (retire) {
    lines.push(
      retire.source === 'none'
        ? 'no trainer feedback (no file, no recorded scores): nothing retired'
        : `from ${retire.source === 'file' ? 'the feedback file' : "the reward service's records"}, at a pass ` +
            `rate of ${pct(retire.retireAt)} or more:`,
    );
    for (const e of retire.retired)
      lines.push(`- ${md(e.name, 120)}: ${pct(e.passRate)} of ${Math.round(e.n)} attempts`);
  }
  lines.push('', '## 3. Batch', '');
  if (batch)
    lines.push(
      `${md(batch.batchId, 120)}: ${batch.admitted} admitted, ${batch.rejected} rejected, $` +
        `${batch.costUsd.toFixed(4)} (stopped: ${md(batch.stopReason, 200)}); aimed at ` +
        `${batch.weakSkills.map((w) => md(w, 80)).join(', ') || 'no weak skill'} (feedback: ` +
        `${md(batch.feedback, 200)})`,
    );
  lines.push('', '## 4. Snapshot', '');
  if (snapshot)
    for (const s of snapshot.snapshots)
      lines.push(`- ${md(s.format, 40)}: ${s.rows} rows of ${s.envs} environments in ${md(s.out, 500)}`);
  return `${lines.join('\n')}\n`;
}
