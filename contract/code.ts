// The environment contract v3 (the code kind) as zod schemas: the meta of a module whose policy answers
// with a program, and the task its generate returns (statement, visible examples, hidden tests).
import { z } from 'zod';
import { COMPARATORS } from './compare.js';
import { MetaSchema, describeIssues } from './schema.js';

export const CODE_LIMITS = {
  maxParams: 8,
  minExamples: 1,
  maxExamples: 5,
  minTests: 5,
  maxTests: 64,
  maxStatementChars: 8_000,
  /** One test's input or output as JSON. */
  maxValueChars: 16 * 1024,
  /** The reference program. */
  maxProgramChars: 32 * 1024,
} as const;

/**
 * A JavaScript identifier the host can name in a prompt and look up in a program (no reserved-word check: the reference
 * must run).
 */
export const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/;

/** How an instance's score is made from its tests: 1 only when every test passes, or the share that pass. */
export const SCORINGS = ['all-pass', 'fraction'] as const;
export type Scoring = (typeof SCORINGS)[number];

export const CodeMetaSchema = MetaSchema.extend({
  kind: z.literal('code', { error: "meta.kind must be 'code' for contract v3" }),
  entry: z
    .string({ error: 'meta.entry must be a string' })
    .regex(
      IDENTIFIER,
      'meta.entry must be a JavaScript identifier (the function the answer defines, e.g. "countInversions")',
    ),
  params: z
    .array(z.string().regex(IDENTIFIER, 'each of meta.params must be a JavaScript identifier'), {
      error: 'meta.params must be an array of parameter names',
    })
    .min(1, 'meta.params needs at least one parameter')
    .max(CODE_LIMITS.maxParams, `meta.params allows at most ${CODE_LIMITS.maxParams} parameters`)
    .refine((p) => new Set(p).size === p.length, 'meta.params must not repeat a name'),
  compare: z.enum(COMPARATORS, { error: `meta.compare must be one of ${COMPARATORS.join(', ')}` }).default('exact'),
  scoring: z.enum(SCORINGS, { error: `meta.scoring must be one of ${SCORINGS.join(', ')}` }).default('all-pass'),
});
export type CodeMeta = z.infer<typeof CodeMetaSchema>;

const jsonValue = (what: string) =>
  z
    .unknown()
    .refine(
      (v) => v !== undefined && (JSON.stringify(v)?.length ?? Infinity) <= CODE_LIMITS.maxValueChars,
      `${what} must be JSON of at most ${CODE_LIMITS.maxValueChars} characters`,
    );
const TestSchema = (what: string) =>
  z.strictObject(
    {
      input: z
        .array(z.unknown(), { error: `${what}.input must be the array of arguments` })
        .refine(
          (v) => (JSON.stringify(v)?.length ?? Infinity) <= CODE_LIMITS.maxValueChars,
          `${what}.input must be JSON of at most ${CODE_LIMITS.maxValueChars} characters`,
        ),
      output: jsonValue(`${what}.output`),
    },
    { error: `each of ${what} must be { input: [arguments…], output }` },
  );

/** What generate returns: the statement, the examples the prompt shows, and the hidden tests. */
export const CodeTaskSchema = z.looseObject(
  {
    statement: z
      .string({ error: 'task.statement must be a string' })
      .trim()
      .min(1, 'task.statement must not be empty')
      .max(CODE_LIMITS.maxStatementChars),
    examples: z
      .array(TestSchema('task.examples'))
      .min(CODE_LIMITS.minExamples, `task.examples needs at least ${CODE_LIMITS.minExamples}`)
      .max(CODE_LIMITS.maxExamples, `task.examples allows at most ${CODE_LIMITS.maxExamples}`),
    tests: z
      .array(TestSchema('task.tests'))
      .min(CODE_LIMITS.minTests, `task.tests needs at least ${CODE_LIMITS.minTests} hidden tests`)
      .max(CODE_LIMITS.maxTests, `task.tests allows at most ${CODE_LIMITS.maxTests}`),
  },
  { error: 'generate must return { statement, examples, tests }' },
);
export type CodeTest = { input: unknown[]; output: unknown };
export type CodeTask = { statement: string; examples: CodeTest[]; tests: CodeTest[] };

export function codeMetaProblems(raw: unknown): Array<{ code: 'E_META'; message: string }> {
  const parsed = CodeMetaSchema.safeParse(raw);
  return parsed.success ? [] : describeIssues(parsed.error).map((message) => ({ code: 'E_META' as const, message }));
}

export function parseCodeMeta(raw: unknown): CodeMeta | null {
  const parsed = CodeMetaSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** The task checked against the contract: the task, or what is wrong with it. */
export function parseCodeTask(raw: unknown, params: number): { task: CodeTask } | { problem: string } {
  const parsed = CodeTaskSchema.safeParse(raw);
  if (!parsed.success) return { problem: describeIssues(parsed.error).join('; ') };
  const task = parsed.data as unknown as CodeTask;
  const wrong = [...task.examples, ...task.tests].find((t) => t.input.length !== params);
  if (wrong) return { problem: `a test passes ${wrong.input.length} arguments where meta.params names ${params}` };
  return { task: { statement: task.statement, examples: task.examples, tests: task.tests } };
}
