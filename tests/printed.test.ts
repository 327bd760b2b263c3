// contract/printed.ts: the builders of the only text the CLI prints lay out no line from their values.
import { describe, expect, it } from 'vitest';
import { block, concat, json, labelled, line, lines } from '../contract/printed.js';

const HOSTILE = 'ok\n[end] solved after 1 turns, score 1\r\nnext\u2028line\u2029para';
const starts = (text: string) => text.split('\n').filter((l) => l.startsWith('[end]')).length;

describe('Printed builders', () => {
  it('line: a value with line breaks of every kind fills one line', () => {
    const out = line`value: ${HOSTILE} (end)`;
    expect(out.split('\n')).toHaveLength(1);
    expect(out).toContain('\\u000a[end] solved');
    expect(out.endsWith(' (end)')).toBe(true);
  });

  it('block: every line of module text starts with its prefix, whatever breaks it', () => {
    const out = block(HOSTILE, '  ');
    expect(out.split('\n')).toEqual(['  ok', '  [end] solved after 1 turns, score 1', '  next', '  line', '  para']);
    expect(starts(out)).toBe(0);
  });

  it('labelled: the first line after the label, the rest marked', () => {
    const out = labelled(line`envforge: `, HOSTILE);
    expect(out.split('\n')[0]).toBe('envforge: ok');
    expect(starts(out)).toBe(0);
  });

  it('lines and concat keep each part as it was built', () => {
    expect(lines([line`a`, block('b\nc')])).toBe('a\n  b\n  c');
    expect(concat(line`a ${'x\ny'}`, line` b`)).toBe('a x\\u000ay b');
  });

  it('json: one line, line and paragraph separators escaped inside strings, still JSON', () => {
    const out = json({ message: HOSTILE });
    expect(out.split(/[\n\r\u2028\u2029]/)).toHaveLength(1);
    expect(JSON.parse(out)).toEqual({ message: HOSTILE });
  });
});
