// Abstentions, numbers that are not finite in any notation and the reference's own notation broken: a
// verifier must not pay for abstaining, for NaN passing a tolerance, or for a parser that throws.
import { zeroFamilyCheck } from './battery.js';

export const nonAnswerCheck = zeroFamilyCheck({
  name: 'non-answer',
  family: 'non-answer',
  code: 'E_ACCEPTS_NON_ANSWER',
});
