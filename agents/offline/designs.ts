// The offline author's memory of what it already designed, by the validator's own fingerprints and thresholds.
import { DEFAULT_NOVELTY_OPTIONS, estimateSimilarity, fingerprint, type Fingerprint } from '../../validators/screen.js';
import type { Synthesised } from './synth.js';

/**
 * The offline author's memory of what it already designed, so it does not propose near-duplicates: the
 * validator's own fingerprints and thresholds, over the design-time samples (the validator, sampling other
 * instances, remains the judge).
 */
export class Designs {
  /** Fingerprints by the spec they were designed for. */
  private readonly entries: Array<{ spec: string; fp: Fingerprint }> = [];

  /**
   * Remembers the design for `spec` and returns true unless it is too close to a design for another spec
   * (a spec's own rejected designs never enter the library, so they do not count).
   */
  claim(spec: string, made: Pick<Synthesised, 'source' | 'check'>): boolean {
    const fp = fingerprint(made.source, made.check.prompts, made.check.references);
    const { codeThreshold, behaviourThreshold } = DEFAULT_NOVELTY_OPTIONS;
    const close = this.entries.some(
      ({ spec: other, fp: e }) =>
        other !== spec &&
        (estimateSimilarity(fp.code, e.code) >= codeThreshold ||
          (fp.answerType === e.answerType && estimateSimilarity(fp.behaviour, e.behaviour) >= behaviourThreshold)),
    );
    if (!close) this.entries.push({ spec, fp });
    return !close;
  }
}
