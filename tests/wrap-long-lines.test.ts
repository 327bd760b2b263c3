// The line-width codemod (.ci/wrap-long-lines.mjs, `npm run wrap`): what it plans for a long line, and the check
// that keeps a wrapped file only when its meaning is unchanged — a check that must also be able to refuse.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Edit {
  start: number;
  end: number;
  text: string;
}
const WRAP = '../.ci/wrap-long-lines.mjs';
const wrap = (await import(WRAP)) as {
  plan(file: string, text: string): { edits: Edit[]; left: Map<number, string>; long: number[] };
  fingerprint(file: string, text: string): { tree: string; words: string };
};

const apply = (text: string, edits: Edit[]) =>
  [...edits].sort((a, b) => b.start - a.start).reduce((t, e) => t.slice(0, e.start) + e.text + t.slice(e.end), text);

const WORDS = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
const SOURCE = [
  `const message = '${WORDS}';`,
  `const pattern = /${'(alpha|beta|gamma)'.repeat(7)}/;`,
  `// ${WORDS}`,
  '',
].join('\n');

describe('npm run wrap', () => {
  it('splits a long string into a + chain, re-wraps a long comment, and lists a regex it cannot split', () => {
    const { edits, left, long } = wrap.plan('x.ts', SOURCE);
    expect(long).toEqual([1, 2, 3]);
    expect(left.get(2)).toMatch(/regex literal/);
    const out = apply(SOURCE, edits);
    const [first, ...rest] = out.split('\n');
    const chain = /^const message = ('[^']+' \+ '[^']+');$/.exec(first as string)?.[1];
    expect(new Function(`return ${chain}`)()).toBe(WORDS);
    expect(rest.filter((l) => l.startsWith('//')).map((l) => l.length <= 120)).toEqual([true, true]);
  });

  it('leaves a long test title whole and lists it: a title split into a + chain is one no grep finds', () => {
    const title = `it('${WORDS}', () => {\n  expect(1).toBe(1);\n});\n`;
    const { edits, left } = wrap.plan('x.test.ts', title);
    expect(edits).toEqual([]);
    expect(left.get(1)).toMatch(/test name/);
  });

  it('keeps a wrapped file only when its syntax tree, literals folded, and its comment words are unchanged', () => {
    const out = apply(SOURCE, wrap.plan('x.ts', SOURCE).edits);
    expect(wrap.fingerprint('x.ts', out)).toEqual(wrap.fingerprint('x.ts', SOURCE));
    const before = wrap.fingerprint('x.ts', SOURCE);
    expect(wrap.fingerprint('x.ts', out.replace('word3 ', 'word3  ')).tree).not.toBe(before.tree);
    expect(wrap.fingerprint('x.ts', out.replace("' + '", "' - '")).tree).not.toBe(before.tree);
    expect(wrap.fingerprint('x.ts', out.replace('// word', '// a word')).words).not.toBe(before.words);
  });

  it('puts a file it would take past the line cap back as it was, times too (else prepare rebuilds dist/)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wrap-'));
    try {
      symlinkSync(resolve('node_modules'), join(dir, 'node_modules'));
      mkdirSync(join(dir, 'pipeline'));
      const file = join(dir, 'pipeline', 'full.ts');
      const text = `${Array.from({ length: 346 }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n${SOURCE}`;
      writeFileSync(file, text);
      const before = statSync(file).mtimeMs;
      const out = execFileSync(process.execPath, [resolve('.ci/wrap-long-lines.mjs'), 'pipeline/full.ts'], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(out).toMatch(/line cap: pipeline\/full\.ts/);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(statSync(file).mtimeMs).toBeLessThanOrEqual(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
