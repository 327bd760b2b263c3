// Stage 1, static: the module compiles, imports nothing, has its kind's exports (v1: meta/generate/solve/verify), meta
// matches the contract, and the source is within size limits.
import type { ProblemCode } from '../../contract/codes.js';
import { MetaSchema, describeIssues } from '../../contract/schema.js';
import type { Problem } from '../report.js';
import type { Stage } from '../context.js';
import { kindOf } from '../../kinds/registry.js';

export const staticStage: Stage = async (ctx) => {
  const problems: Problem[] = [];
  const load = await ctx.pool.load(ctx.source, ctx.options.limits);
  ctx.load = load;
  if (!load.ok) {
    problems.push({ code: load.code, message: load.message });
    return { ok: false, metrics: { sourceChars: ctx.source.length }, problems };
  }
  ctx.kind = kindOf(load.meta);
  for (const [name, type] of Object.entries(ctx.kind.exports)) {
    const actual = load.exports[name];
    if (actual !== type) {
      const code: ProblemCode = name === 'meta' && actual !== undefined ? 'E_META' : 'E_MISSING_EXPORT';
      problems.push({ code, message: actual === undefined ? `the module must export ${name} (a ${type})` : `export ${name} must be a ${type}, not a ${actual}` });
    }
  }
  if (load.metaError) problems.push({ code: load.metaError.code === 'E_THROWN' ? 'E_META' : load.metaError.code, message: load.metaError.message });
  else if (load.exports.meta !== undefined) {
    const meta = MetaSchema.safeParse(load.meta);
    if (meta.success) ctx.meta = meta.data;
    else for (const message of describeIssues(meta.error)) problems.push({ code: 'E_META', message, evidence: { meta: load.meta } });
  }
  return { ok: problems.length === 0, metrics: { sourceChars: ctx.source.length, exports: load.exports }, problems };
};
