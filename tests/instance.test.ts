// The module-to-factory rewrite (sandbox/instance.ts): every export form comes back through the reader as a
// live binding of a fresh instance, the top level runs once per instance, and what is not a module without
// imports is refused.
import { describe, expect, it } from 'vitest';
import { FACTORY_EXPORT, factorySource } from '../sandbox/instance.js';

type Reader = (name: string) => unknown;

/** Evaluates the factory module in this process (a data: URL) and returns its factory. */
async function factoryOf(source: string): Promise<() => Reader> {
  const module = (await import(`data:text/javascript,${encodeURIComponent(factorySource(source))}`)) as Record<
    string,
    () => Reader
  >;
  return module[FACTORY_EXPORT] as () => Reader;
}

describe('factorySource', () => {
  it('returns every export form, and each instance has its own top-level state', async () => {
    const make = await factoryOf(`#!/usr/bin/env node
      let calls = 0;
      export const meta = { name: 'm' };
      export let a = 1, { b, c: [d] } = { b: 2, c: [3] };
      export function generate() { calls++; a++; return calls; }
      export class Klass {}
      const hidden = 5;
      export { hidden as visible, hidden as 'quoted name' };
      export default function () { return 'default'; }
      // a trailing comment without a newline`);
    const first = make();
    const exported = ['Klass', 'a', 'b', 'd', 'default', 'generate', 'meta', 'quoted name', 'visible'];
    expect(exported.map((name) => typeof first(name))).toEqual([
      'function',
      'number',
      'number',
      'number',
      'function',
      'function',
      'object',
      'number',
      'number',
    ]);
    // Only exports can be read: not the module's other bindings, nor anything inherited.
    for (const name of ['calls', 'hidden', 'c', 'toString', '__proto__', 'constructor'])
      expect(first(name)).toBeUndefined();
    const generate = first('generate') as () => number;
    expect([generate(), generate(), first('a')]).toEqual([1, 2, 3]); // live binding
    const second = make();
    expect([
      (second('generate') as () => number)(),
      second('a'),
      second('visible'),
      (second('default') as () => string)(),
    ]).toEqual([1, 2, 5, 'default']);
  });

  it('names an anonymous default class and wraps a default expression', async () => {
    expect(typeof (await factoryOf('export default class {}'))()('default')).toBe('function');
    expect((await factoryOf('export default 1 + 2;'))()('default')).toBe(3);
  });

  it('reads its name from arguments, which no guest binding can shadow', async () => {
    // Bindings named like the reader's own words stay the guest's: the reader declares nothing.
    const make = await factoryOf(
      'const read = 1, name = 2; export { read, name }; export function arg() { return typeof arguments; }',
    );
    expect([make()('read'), make()('name'), (make()('arg') as () => string)()]).toEqual([1, 2, 'object']);
  });

  it('gives each instance its own import.meta and no name for the factory', async () => {
    const make = await factoryOf(`const m = import  /* a comment */ . meta; m.n = (m.n ?? 0) + 1;
      let reach = 'none'; try { reach = typeof envforgeInstance; } catch {}
      export const n = m.n, proto = Object.getPrototypeOf(import.meta), r = reach;
      export default import.meta;`);
    expect([make()('n'), make()('n'), make()('proto'), make()('r')]).toEqual([1, 1, null, 'undefined']);
    expect(make()('default')).not.toBe(make()('default'));
  });

  it('refuses imports, re-exports and text that is not a module', () => {
    expect(() => factorySource("import x from 'y';")).toThrow(/imports/);
    expect(() => factorySource("export * from 'y';")).toThrow(/imports/);
    expect(() => factorySource("export { x } from 'y';")).toThrow(/imports/);
    // Breaking out of the factory would need text that is not a module on its own.
    expect(() => factorySource('}); globalThis.escaped = 1; (function () {')).toThrow(SyntaxError);
    expect(() => factorySource('return 1;')).toThrow(SyntaxError);
  });
});
