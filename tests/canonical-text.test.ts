// The runtime's fast canonical form of a state text (episodic-actions.js canonicalText) is canonical() of the
// parsed value, character for character, whatever the keys: out of order, nested, __proto__, digits, unicode.
import { describe, expect, it } from 'vitest';
import { loadPlainRuntime } from '../sandbox/runtime.js';

const { canonical, canonicalText } = loadPlainRuntime().episodic;

/** A seeded generator of JSON values whose keys come in any order, some of them the awkward kind. */
function values(seed: number, count: number): unknown[] {
  let x = seed;
  const draw = (n: number) => ((x = (x * 48_271) % 2_147_483_647), x % n);
  const keys = ['b', 'a', 'zeta', 'Z', '_x', 'é', '10', '9', '0', '__proto__', 'a b', '1x', '-1', 'toJSON', 'ab', 'aa'];
  const leaf = (): unknown =>
    [null, true, false, draw(1000) - 500, (draw(1e6) - 5e5) / 7, -0, 'text', 'line\nbreak', '\u2028', 'ü'][draw(10)];
  const value = (depth: number): unknown => {
    const kind = depth > 3 ? 0 : draw(3);
    if (kind === 0) return leaf();
    if (kind === 1) return Array.from({ length: draw(4) }, () => value(depth + 1));
    const out: Record<string, unknown> = {};
    for (let i = draw(6); i > 0; i--)
      Object.defineProperty(out, keys[draw(keys.length)] as string, {
        value: value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  };
  return Array.from({ length: count }, () => value(0));
}

describe('canonicalText', () => {
  it('writes what canonical() writes for the parsed value, for every key order and kind of key', () => {
    for (const v of values(7, 2_000)) {
      const text = JSON.stringify(v);
      expect(canonicalText(text), text).toBe(canonical(JSON.parse(text)));
    }
  });

  it('sorts keys at every depth, keeps array order, and writes no space', () => {
    expect(canonicalText('{"b":[{"d":1,"c":2}],"a":{"y":null,"x":"é"}}')).toBe(
      '{"a":{"x":"é","y":null},"b":[{"c":2,"d":1}]}',
    );
    expect(canonicalText('{"__proto__":{"b":1,"a":2},"0":3}')).toBe('{"0":3,"__proto__":{"a":2,"b":1}}');
    expect(canonicalText('7')).toBe('7');
  });
});
