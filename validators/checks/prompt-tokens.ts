// The prompt's own tokens of the answer's kind (a number of the prompt for a number, as many of its words
// as a list answer has): a weaker property ("a prime of the list" for "the largest prime") pays them far
// more often than chance (the token is the answer anyway).
import { batteryRequests, rateFamilyCheck } from './battery.js';

export const promptTokensCheck = rateFamilyCheck({
  name: 'prompt-tokens',
  code: 'E_ACCEPTS_GUESSING',
  requests: (ctx) => batteryRequests(ctx, ['prompt-token']),
  groups: (ran) => [['prompt-token', ran]],
  limits: (o) => ({ pass: { pooled: o.rateFamilyPassExcess }, mean: o.rateFamilyMeanExcess, z: o.rateZ }),
});
