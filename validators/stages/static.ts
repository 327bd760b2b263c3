// Stage 1, static: the module compiles, imports nothing, exports meta/generate/solve/verify, meta
// matches the contract, and the source is within size limits.
import type { ProblemCode } from '../../contract/codes.js';
import { MetaSchema, describeIssues } from '../../contract/schema.js';
import type { Problem } from '../report.js';
import type { Stage } from '../context.js';

const REQUIRED = { meta: 'object', generate: 'function', solve: 'function', verify: 'function' } as const;

export const staticStage: Stage = async (ctx) => {
  const problems: Problem[] = [];
  const load = await ctx.pool.load(ctx.source, ctx.options.limits);
  ctx.load = load;
  if (!load.ok) {
    problems.push({ code: load.code, message: load.message });
    return { ok: false, metrics: { sourceChars: ctx.source.length }, problems };
  }
  for (const [name, type] of Object.entries(REQUIRED)) {
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
