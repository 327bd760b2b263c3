// What a batch's journal already holds, read back on start: specs, modules, verdicts, outcomes and
// calibrations, so a resumed batch skips paid and finished work.
import type { EnvSpec } from '../agents/spec.js';
import type { Library } from '../library/contract.js';
import type { Calibration } from './calibration.js';
import type { CandidateOutcome, FirstProblem } from './report.js';

export interface ModuleEntry {
  source: string | null;
  problem?: string;
  promptHash: string;
  model: string;
  purpose: 'generator' | 'repair';
}

export interface VerdictEntry {
  verdict: 'admit' | 'reject';
  hash: string;
  codes: string[];
  firstFailedStage: string | null;
  /** The report's first problem, for the report's list of rejections (absent in journals of older versions). */
  firstProblem?: FirstProblem | null;
}

/** Everything the journal already holds, so a resumed batch skips paid and finished work. */
export class JournalState {
  specs: EnvSpec[] = [];
  architectRounds = 0;
  dropped = 0;
  modules = new Map<string, ModuleEntry>();
  verdicts = new Map<string, VerdictEntry>();
  outcomes = new Map<string, CandidateOutcome>();
  calibrations = new Map<string, Calibration>();
  /** The batch's validation key (pipeline/batch.ts), once journaled. */
  validationKey: string | undefined;

  /** The batch's validation key: the journaled one, else `chosen`, which `record` journals first. */
  async keyFor(chosen: string, record: (payload: { key: string }) => Promise<void>): Promise<string> {
    if (this.validationKey === undefined) {
      await record({ key: chosen });
      this.validationKey = chosen;
    }
    return this.validationKey;
  }

  /** A candidate's outcome: counted at once (before the journal write awaits), then journaled. */
  async settle(outcome: CandidateOutcome, record: (outcome: CandidateOutcome) => Promise<void>): Promise<void> {
    this.outcomes.set(outcome.spec, outcome);
    await record(outcome);
  }

  static async load(library: Library, batchId: string): Promise<JournalState> {
    const state = new JournalState();
    for (const entry of await library.journal(batchId)) {
      const payload = entry.payload as Record<string, unknown>;
      if (entry.kind === 'specs') {
        state.architectRounds++;
        state.specs.push(...(payload.specs as EnvSpec[]));
        state.dropped += payload.dropped as number;
      } else if (entry.kind === 'module') state.modules.set(entry.key, payload as unknown as ModuleEntry);
      // A calibration rejection, or a duplicate found at admission, is journaled as a second verdict for the
      // same attempt: it replaces the first.
      else if (entry.kind === 'verdict')
        state.verdicts.set(entry.key.replace(/\/(calibrated|rechecked)$/, ''), payload as unknown as VerdictEntry);
      else if (entry.kind === 'outcome') state.outcomes.set(entry.key, payload as unknown as CandidateOutcome);
      else if (entry.kind === 'calibration') state.calibrations.set(entry.key, payload as unknown as Calibration);
      else if (entry.kind === 'validation-key' && typeof payload.key === 'string') state.validationKey = payload.key;
    }
    return state;
  }
}
