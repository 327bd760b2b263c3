// Set up in each test file only when ENVFORGE_VALIDATION_LOG names a file (vitest.config.ts): the file's validations,
// in its own process and in the CLI processes it starts, are logged under its path (validators/validation-log.ts).
import { beforeAll, expect } from 'vitest';

beforeAll(() => {
  process.env.ENVFORGE_VALIDATION_LOG_TAG = expect.getState().testPath ?? '';
});
