// An environment's fingerprint, code and behaviour, as the library stores it and the LSH index compares it.
import { behaviourFingerprint } from './behaviour.js';
import { codeFingerprint } from './code.js';
import type { NoveltyOptions } from './minhash.js';

/** What the library stores per environment. */
export interface Fingerprint {
  /** MinHash signature (e.g. 128 uint32) of shingles of the normalised code tokens. */
  code: number[];
  /** MinHash signature of word shingles of generated prompts with numbers masked. */
  behaviour: number[];
  /**
   * Coarse answer-type signature, e.g. 'int', 'list:int', 'text', 'fraction', 'mixed' derived from reference answers.
   */
  answerType: string;
}

/** Both fingerprints of an environment from its source and a sample of its prompts and reference responses. */
export function fingerprint(
  source: string,
  prompts: string[],
  references: string[],
  options?: Partial<NoveltyOptions>,
): Fingerprint {
  return { code: codeFingerprint(source, options), ...behaviourFingerprint(prompts, references, options) };
}
