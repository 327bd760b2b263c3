// A mutant's site (sandbox/code/mutants.ts) names its change by the program's structure: references that differ only
// in literals, comments or layout (a constant per instance, redteam-st21 U3) have the same sites, so code-mutants
// judges one mutant across all their instances; a change to the structure gives other sites.
import { describe, expect, it } from 'vitest';
import { mutantsOf } from '../sandbox/code/mutants.js';

const program = (target: number, note: string, gap = '') =>
  `// ${note}\nfunction f(xs) {${gap}\n  let n = 0;\n  for (const x of xs) if (x >= ${target}) n += 1;\n  return n;\n}`;

describe('mutant sites', () => {
  it('are the same in references that differ only in a literal, a comment or the layout', () => {
    const a = mutantsOf(program(2731, 'shop 417'), 60);
    const b = mutantsOf(program(1042, 'shop 9', '\n\n'), 60);
    expect(a.map((m) => m.site)).toEqual(b.map((m) => m.site));
    expect(new Set(a.map((m) => m.site)).size).toBe(a.length);
    // The texts differ (the constant, the offsets): only the site pools them.
    expect(a.map((m) => m.change)).not.toEqual(b.map((m) => m.change));
    const boundary = a.find((m) => m.change.startsWith('>= → >'));
    expect(b.find((m) => m.site === boundary?.site)?.change).toMatch(/^>= → > at/);
  });

  it('differ where the structure differs', () => {
    const a = mutantsOf(program(5, 'x'), 60).map((m) => m.site);
    const b = mutantsOf(program(5, 'x').replace('>=', '>'), 60).map((m) => m.site);
    expect(a.filter((s) => b.includes(s))).toEqual([]);
  });
});
