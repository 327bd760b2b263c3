// The nightly run's report: one JSON object with a section per step (written as each step finishes) and
// the same as Markdown for people.
export interface NightReport {
  night: string;
  startedAt: string;
  finishedAt: string | null;
  /** The step that failed in the latest run, with its error (cleared when it succeeds). */
  failed?: { step: string; message: string };
  steps: {
    revalidate?: { validatorVersion: string; outcomes: Array<{ name: string; version: number; verdict: string; retired: boolean; codes: string[] }> };
    retire?: { source: string; retireAt: number; retired: Array<{ name: string; passRate: number; n: number }> };
    batch?: { batchId: string; feedback: string; weakSkills: string[]; admitted: number; rejected: number; costUsd: number; perAdmittedUsd: number | null; stopReason: string; frontier: unknown };
    export?: { snapshots: Array<{ format: string; out: string; rows: number; envs: number }> };
  };
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

export function nightMarkdown(r: NightReport): string {
  const { revalidate, retire, batch, export: snapshot } = r.steps;
  const lines = [`# envforge nightly ${r.night}`, '', `started ${r.startedAt}, finished ${r.finishedAt ?? '(not yet)'}`, ''];
  if (r.failed) lines.push(`**FAILED** in the ${r.failed.step} step: ${r.failed.message}`, '', 'Run envforge nightly again (same --night) to retry: the finished steps are kept.', '');
  lines.push('## 1. Revalidate', '');
  if (revalidate) {
    lines.push(revalidate.outcomes.length ? `${revalidate.outcomes.length} environments admitted by an older validator, revalidated with ${revalidate.validatorVersion}:` : `every active environment was admitted by validator ${revalidate.validatorVersion}: nothing to revalidate`);
    for (const o of revalidate.outcomes) lines.push(`- ${o.name}@${o.version}: ${o.verdict}${o.retired ? ` (retired: ${o.codes.join(', ')})` : ''}`);
  }
  lines.push('', '## 2. Retire saturated environments', '');
  if (retire) {
    lines.push(retire.source === 'none' ? 'no trainer feedback (no file, no recorded scores): nothing retired' : `from ${retire.source === 'file' ? 'the feedback file' : "the reward service's records"}, at a pass rate of ${pct(retire.retireAt)} or more:`);
    for (const e of retire.retired) lines.push(`- ${e.name}: ${pct(e.passRate)} of ${Math.round(e.n)} attempts`);
  }
  lines.push('', '## 3. Batch', '');
  if (batch) lines.push(`${batch.batchId}: ${batch.admitted} admitted, ${batch.rejected} rejected, $${batch.costUsd.toFixed(4)} (stopped: ${batch.stopReason}); aimed at ${batch.weakSkills.join(', ') || 'no weak skill'} (feedback: ${batch.feedback})`);
  lines.push('', '## 4. Snapshot', '');
  if (snapshot) for (const s of snapshot.snapshots) lines.push(`- ${s.format}: ${s.rows} rows of ${s.envs} environments in ${s.out}`);
  return `${lines.join('\n')}\n`;
}
