// Reading and perturbing reference answers: the content of the answer tag, numbers ±1, reordered
// lists, case flips. Used by the hack-resistance probes and the diversity and leak measures.

const OPEN = '<answer>';
const CLOSE = '</answer>';

/** The text inside the reference's last answer tag, or the whole reference when it has no tag. */
export function answerContent(reference: string): string {
  const start = reference.lastIndexOf(OPEN);
  const end = start >= 0 ? reference.indexOf(CLOSE, start) : -1;
  return (start >= 0 && end >= 0 ? reference.slice(start + OPEN.length, end) : reference).trim();
}

/** Replaces the content of the reference's answer tag (or the whole reference) with `content`. */
export function withContent(reference: string, content: string): string {
  const start = reference.lastIndexOf(OPEN);
  const end = start >= 0 ? reference.indexOf(CLOSE, start) : -1;
  if (start < 0 || end < 0) return content;
  return reference.slice(0, start + OPEN.length) + content + reference.slice(end);
}

/** Whitespace-collapsed, for comparing answers as a person would. */
export function normalizeAnswer(content: string): string {
  return content.trim().replace(/\s+/g, ' ');
}

const INTEGER = /^[+-]?\d{1,15}$/;
export function isIntegerAnswer(content: string): boolean {
  return INTEGER.test(content.trim());
}

/** Variants of `content` with one number moved by ±1: the first and the last number, up and down. */
export function perturbNumbers(content: string): string[] {
  const matches = [...content.matchAll(/-?\d+/g)].filter((m) => m[0].length <= 15);
  if (matches.length === 0) return [];
  const chosen = [matches[0], matches[matches.length - 1]].filter((m, i, all) => all.indexOf(m) === i);
  const out = new Set<string>();
  for (const m of chosen) {
    if (!m || m.index === undefined) continue;
    for (const delta of [1, -1]) {
      const replaced = content.slice(0, m.index) + String(Number(m[0]) + delta) + content.slice(m.index + m[0].length);
      if (replaced !== content) out.add(replaced);
    }
  }
  return [...out];
}

/** The list reversed and rotated (when the content is a comma- or space-separated list of 3+ items). */
export function reorderList(content: string): string[] {
  const separator = content.includes(',') ? ',' : /\s/.test(content.trim()) ? ' ' : null;
  if (!separator) return [];
  const items = content.split(separator).map((s) => s.trim()).filter(Boolean);
  if (items.length < 3) return [];
  const join = separator === ',' ? ', ' : ' ';
  const variants = [[...items].reverse(), [...items.slice(1), items[0]]].map((v) => v.join(join));
  return variants.filter((v) => normalizeAnswer(v) !== normalizeAnswer(content));
}

export function flipCase(content: string): string[] {
  const flipped = [...content].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
  return flipped !== content ? [flipped] : [];
}

/** The most common value and its share. */
export function mostCommon<T>(values: T[]): { value: T | undefined; share: number; distinct: number } {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: T | undefined;
  let bestCount = 0;
  for (const [v, c] of counts) if (c > bestCount) [best, bestCount] = [v, c];
  return { value: best, share: values.length ? bestCount / values.length : 0, distinct: counts.size };
}

/** Shannon entropy in bits of the values' distribution. */
export function entropyBits<T>(values: T[]): number {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) {
    const p = c / values.length;
    h -= p * Math.log2(p);
  }
  return h;
}
