// The registry of checks: every mechanism of every kind's hack stage, one file each beside this one. A
// kind's stage runs the entries that name its kind (checksFor) and judges their findings with rules.ts.
import type { AnyCheck } from './contract.js';
import { codeMutants } from './code-mutants.js';
import { codePrograms } from './code-programs.js';

export const CHECKS: readonly AnyCheck[] = [codePrograms, codeMutants];
