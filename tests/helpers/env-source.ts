// Builds small environment modules for tests: a valid skeleton whose functions can be swapped for
// broken or hostile bodies one at a time.

export interface EnvParts {
  meta?: string;
  generate?: string;
  solve?: string;
  verify?: string;
  prelude?: string;
}

const META = "{ name: 'test-env', title: 'Test', description: 'A test environment.', skills: ['testing'], levels: 3 }";
const GENERATE =
  "const a = rng.int(1, 1000 * level); return { prompt: 'What is ' + a + ' + 1? Answer as " +
  "<answer>N</answer>.', answer: a + 1 };";

export function envSource(parts: EnvParts = {}): string {
  return [
    parts.prelude ?? '',
    `export const meta = ${parts.meta ?? META};`,
    `export function generate(rng, level) { ${parts.generate ?? GENERATE} }`,
    `export function solve(instance) { ${parts.solve ?? "return '<answer>' + instance.answer + '</answer>';"} }`,
    `export function verify(instance, response) { ` +
      `${parts.verify ?? "return kit.int(kit.answer(response) ?? '') === instance.answer ? 1 : 0;"} }`,
  ].join('\n');
}
