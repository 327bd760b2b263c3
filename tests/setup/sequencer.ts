// The order the test files start in: longest first, from a committed list of their durations (a clean clone,
// as in CI, has no vitest cache, which would order them by file size), so that on two workers the run does not
// end with one long file started last. A file not on the list starts first (it may be long). Files whose project
// shares worker processes (`isolate: false`) start after all the others, in a row: a worker goes on to the next
// file only when that file is of its project, so one isolated file between them would cost a new process.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds per test file (path from the repository root) in a whole run on 2 cores, refreshed by hand (docs/testing.md).
 */
const DURATIONS = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as Record<
  string,
  number
>;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (spec: TestSpecification) =>
      DURATIONS[relative(spec.project.config.root, spec.moduleId).replaceAll('\\', '/')] ?? Number.POSITIVE_INFINITY;
    const shares = (spec: TestSpecification) => (spec.project.config.isolate === false ? 1 : 0);
    return [...files].sort(
      (a, b) => shares(a) - shares(b) || (seconds(a) === seconds(b) ? 0 : seconds(b) > seconds(a) ? 1 : -1),
    );
  }
}
