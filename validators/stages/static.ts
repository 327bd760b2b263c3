// Stage 1, static: the module compiles, imports nothing, has its kind's exports (v1: meta/generate/solve/verify), meta
// matches the contract, and the source is within size limits.
import type { ProblemCode } from '../../contract/codes.js';
import type { Problem } from '../report.js';
import type { Stage } from '../context.js';
import { kindOfModule } from '../../kinds/registry.js';

export const staticStage: Stage = async (ctx) => {
  const problems: Problem[] = [];
  const load = await ctx.pool.load(ctx.source, ctx.options.limits);
  ctx.load = load;
  if (!load.ok) {
    problems.push({ code: load.code, message: load.message });
    return { ok: false, metrics: { sourceChars: ctx.source.length }, problems };
  }
  ctx.kind = kindOfModule(load.metaError ? undefined : load.meta, load.exports);
  for (const [name, type] of Object.entries(ctx.kind.exports)) {
    const actual = load.exports[name];
    if (actual !== type) {
      const code: ProblemCode = name === 'meta' && actual !== undefined ? 'E_META' : 'E_MISSING_EXPORT';
      problems.push({
        code,
        message:
          actual === undefined
            ? `the module must export ${name} (a ${type})`
            : `export ${name} must be a ${type}, not a ${actual}`,
      });
    }
  }
  if (load.metaError)
    problems.push({
      code: load.metaError.code === 'E_THROWN' ? 'E_META' : load.metaError.code,
      message: load.metaError.message,
    });
  else if (load.exports.meta !== undefined) {
    const checked = ctx.kind.checkMeta(load.meta);
    if (checked.meta) ctx.meta = checked.meta;
    for (const { code, message } of checked.problems)
      problems.push({ code, message, evidence: { meta: clipMeta(load.meta) } });
  }
  return { ok: problems.length === 0, metrics: { sourceChars: ctx.source.length, exports: load.exports }, problems };
};

/** A meta small enough to keep in a report as evidence (a hostile one may hold megabytes). */
function clipMeta(meta: unknown): unknown {
  const text = JSON.stringify(meta) ?? '';
  return text.length <= 4_000 ? meta : `${text.slice(0, 4_000)}…(${text.length} chars)`;
}
