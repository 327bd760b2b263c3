// The prompt echoed back (bare, in a tag, in bold, in a fence) holds every number of the task and no
// answer: a verifier that pays it matches the answer anywhere in the text.
import { zeroFamilyCheck } from './battery.js';

export const echoCheck = zeroFamilyCheck({ name: 'echo', family: 'echo', code: 'E_ACCEPTS_ECHO' });
