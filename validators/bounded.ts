// Depth-bounded copies of report data: whatever a stage puts in a report (guest meta, evidence), the copy
// nests at most MAX_DEPTH levels, so serialising a report (CLI, library store) can never overflow the stack.

const MAX_REPORT_DEPTH = 24;

/** A copy of `value` with anything nested deeper than `maxDepth` replaced by a short marker string. */
export function boundDepth<T>(value: T, maxDepth = MAX_REPORT_DEPTH): T {
  return copy(value, maxDepth) as T;
}

function copy(value: unknown, left: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (left <= 0) return `[nested deeper than the report limit]`;
  if (Array.isArray(value)) return value.map((v) => copy(v, left - 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = copy(v, left - 1);
  return out;
}
