// The registry of checks: every mechanism of every kind's hack stage, one file each beside this one. A
// kind's stage runs the entries that name its kind (checksFor) and judges their findings with rules.ts.
import type { AnyCheck } from './contract.js';
import { codeMutants } from './code-mutants.js';
import { codePrograms } from './code-programs.js';
import { episodicArguments } from './episodic-arguments.js';
import { episodicBaselines } from './episodic-baselines.js';
import { episodicCuts } from './episodic-cuts.js';
import { episodicLeaks } from './episodic-leaks.js';
import { episodicOffPath } from './episodic-off-path.js';
import { episodicReaders } from './episodic-readers.js';
import { episodicRules } from './episodic-rules.js';
import { episodicShrink } from './episodic-shrink.js';
import { episodicTyped } from './episodic-typed.js';
import { episodicValues } from './episodic-values.js';

export const CHECKS: readonly AnyCheck[] = [episodicBaselines, episodicLeaks, episodicCuts, episodicOffPath, episodicShrink, episodicValues, episodicTyped, episodicRules, episodicArguments, episodicReaders, codePrograms, codeMutants];
