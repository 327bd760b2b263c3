// The code registry (contract/codes.ts) is complete: every stable code the source, the guest runtime or the
// prompts mention is registered with a meaning, in exactly one group.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CODES,
  HOST_CODES,
  isCode,
  LLM_CODES,
  PROBLEM_CODES,
  SELECTION_CODES,
  SERVICE_CODES,
} from '../contract/codes.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The source (product code, the guest runtime) and the prompts models read; docs describe codes but do not use them.
 */
const PLACES = [
  'contract',
  'sandbox',
  'kinds',
  'validators',
  'library',
  'agents',
  'pipeline',
  'export',
  'serve',
  'dashboard',
  'nightly',
  'cli',
  'bench',
  'index.ts',
  'prompts',
];

function files(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full)
    .flatMap((name) => files(`${path}/${name}`))
    .filter((f) => /\.(ts|js|md)$/.test(f));
}

/** Every E_… token in a text, with where it is (E_ACCEPTS_* names a family, not a code). */
function codesIn(file: string): Array<{ code: string; where: string }> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/\bE_[A-Z][A-Z0-9_]*\b(?!\*)/g)].map((m) => ({
    code: m[0],
    where: `${file}:${text.slice(0, m.index).split('\n').length}`,
  }));
}

describe('the code registry', () => {
  const mentions = PLACES.flatMap(files).flatMap(codesIn);

  it('finds the codes the source uses (the scan works)', () => {
    const found = new Set(mentions.map((m) => m.code));
    for (const code of [
      'E_TIMEOUT',
      'E_USAGE',
      'E_LIBRARY',
      'E_UNKNOWN_ENV',
      'E_BAD_REQUEST',
      'E_LLM_BUDGET',
      'E_EXPORT',
    ])
      expect(found).toContain(code);
  });

  it('registers every code mentioned anywhere in the source and the prompts', () => {
    expect(mentions.filter((m) => !isCode(m.code)).map((m) => `${m.where}: ${m.code}`)).toEqual([]);
  });

  it('keeps each code in one group, each with a one-line meaning', () => {
    const groups = [PROBLEM_CODES, LLM_CODES, HOST_CODES, SELECTION_CODES, SERVICE_CODES].map((g) => Object.keys(g));
    expect(groups.flat().length).toBe(new Set(groups.flat()).size);
    expect(Object.keys(CODES).sort()).toEqual(groups.flat().sort());
    for (const [code, meaning] of Object.entries(CODES)) {
      expect(code).toMatch(/^E_[A-Z][A-Z0-9_]*$/);
      expect(meaning.length, code).toBeGreaterThan(10);
      expect(meaning, code).not.toContain('\n');
    }
  });
});
