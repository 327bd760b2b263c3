// The seeds the validator samples instances at: drawn at random from the whole seed space (non-negative
// safe integers) by a recorded validation seed, so a module cannot keep a table of the seeds it will be
// judged on, and any verdict can be replayed (`envforge validate --validation-seed N`).
import { createHash, randomBytes, randomInt } from 'node:crypto';

/**
 * A fresh validation seed: the one value a report needs to reproduce its draws. ENVFORGE_VALIDATION_SEED (an integer)
 * fixes it for every validation that names none: the test suite sets it, so CI judges honest modules at a recorded
 * seed (a random one made a borderline check fail one CI run in several); unset, the product draws at random.
 */
export function newValidationSeed(): number {
  const fixed = process.env.ENVFORGE_VALIDATION_SEED;
  if (fixed === undefined || fixed === '') return randomInt(0, 2 ** 48 - 1);
  const n = Number(fixed);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new Error(
      `ENVFORGE_VALIDATION_SEED must be a non-negative integer, not ${JSON.stringify(fixed.slice(0, 40))}`,
    );
  return n;
}

/**
 * A batch's secret: with each candidate's source it fixes the candidate's validation seed (candidateValidationSeed).
 */
export function newValidationKey(): string {
  return randomBytes(16).toString('hex');
}

/**
 * A candidate's validation seed within a batch: the batch's key and the module's own text, hashed. A rerun
 * or a resume of the batch (same key) reproduces every verdict; a module cannot predict its draws, since
 * it knows neither the key nor (short of a quine) a digest of itself.
 */
export function candidateValidationSeed(key: string, source: string): number {
  return createHash('sha256').update(`envforge-candidate-v1\u0000${key}\u0000${source}`).digest().readUIntBE(0, 6);
}

/**
 * The k-th draw for a level. Seeds in use range from small counters (0, 1, 2…) to 32-bit and 53-bit
 * values, so the bit length is drawn uniformly from 0..53 and the seed uniformly among seeds of that
 * length: every scale of seed is sampled, and a rule gated on one range of seeds meets the validator.
 */
function drawSeed(validationSeed: number, level: number, k: number): number {
  const digest = createHash('sha256')
    .update(`envforge-validation-v1\u0000${validationSeed}\u0000${level}\u0000${k}`)
    .digest();
  const bits = digest.readUInt8(0) % 54;
  if (bits === 0) return 0;
  // 53 random bits (21 + 32), reduced to the bucket [2^(bits-1), 2^bits).
  const random = (digest.readUInt32LE(1) & 0x1f_ffff) * 2 ** 32 + digest.readUInt32LE(5);
  const low = 2 ** (bits - 1);
  return low + (random % low);
}

/** `count` distinct seeds for a level (a repeated draw is skipped, so small buckets cannot repeat an instance). */
export function levelSeeds(validationSeed: number, level: number, count: number): number[] {
  const seeds = new Set<number>();
  for (let k = 0; seeds.size < count; k++) seeds.add(drawSeed(validationSeed, level, k));
  return [...seeds];
}
