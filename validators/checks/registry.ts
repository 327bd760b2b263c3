// The registry of checks: every mechanism of every kind's hack stage, one file each beside this one. A
// kind's stage runs the entries that name its kind (checksFor) and judges their findings with rules.ts.
import { acceptanceCheck } from './acceptance.js';
import { completenessCheck } from './completeness.js';
import type { AnyCheck } from './contract.js';
import { codeAcceptance } from './code-acceptance.js';
import { codeBounds } from './code-bounds.js';
import { codeMutants } from './code-mutants.js';
import { codePrograms } from './code-programs.js';
import { codeReader } from './code-reader.js';
import { creditFloorCheck } from './credit-floor.js';
import { echoCheck } from './echo.js';
import { emptyCheck } from './empty.js';
import { enumerationCheck } from './enumeration.js';
import { episodicAlternatives } from './episodic-alternatives.js';
import { episodicArguments } from './episodic-arguments.js';
import { episodicBaselines } from './episodic-baselines.js';
import { episodicCuts } from './episodic-cuts.js';
import { episodicExchanges } from './episodic-exchanges.js';
import { episodicPadding } from './episodic-padding.js';
import { episodicLeaks } from './episodic-leaks.js';
import { episodicOffPath } from './episodic-off-path.js';
import { episodicOrders } from './episodic-orders.js';
import { episodicReaders } from './episodic-readers.js';
import { episodicRules } from './episodic-rules.js';
import { episodicShrink } from './episodic-shrink.js';
import { episodicSuggested } from './episodic-suggested.js';
import { episodicSurface } from './episodic-surface.js';
import { episodicTyped } from './episodic-typed.js';
import { episodicValues } from './episodic-values.js';
import { episodicWithheld } from './episodic-withheld.js';
import { feedbackCheck } from './feedback.js';
import { formatOnlyCheck } from './format-only.js';
import { grammarCheck } from './grammar.js';
import { guessingCheck } from './guessing.js';
import { hugeCheck } from './huge.js';
import { malformedListCheck } from './malformed-list.js';
import { nonAnswerCheck } from './non-answer.js';
import { notationCheck } from './notation.js';
import { otherAnswerCheck } from './other-answer.js';
import { perturbedCheck } from './perturbed.js';
import { promptTokensCheck } from './prompt-tokens.js';
import { quantitiesCheck } from './quantities.js';
import { readersCheck } from './readers.js';
import { stuffingCheck } from './stuffing.js';

export const CHECKS: readonly AnyCheck[] = [
  // single-turn
  emptyCheck,
  echoCheck,
  formatOnlyCheck,
  nonAnswerCheck,
  stuffingCheck,
  enumerationCheck,
  hugeCheck,
  malformedListCheck,
  otherAnswerCheck,
  perturbedCheck,
  promptTokensCheck,
  creditFloorCheck,
  feedbackCheck,
  acceptanceCheck,
  notationCheck,
  grammarCheck,
  quantitiesCheck,
  completenessCheck,
  guessingCheck,
  readersCheck,
  // episodic
  episodicBaselines,
  episodicLeaks,
  episodicCuts,
  episodicPadding,
  episodicOffPath,
  episodicShrink,
  episodicValues,
  episodicTyped,
  episodicRules,
  episodicOrders,
  episodicArguments,
  episodicExchanges,
  episodicAlternatives,
  episodicWithheld,
  episodicSurface,
  episodicSuggested,
  episodicReaders,
  // code
  codePrograms,
  codeMutants,
  codeAcceptance,
  codeReader,
  codeBounds,
];
