// Empty and whitespace-only responses hold no answer: a verifier that pays them pays by default.
import { zeroFamilyCheck } from './battery.js';

export const emptyCheck = zeroFamilyCheck({ name: 'empty', family: 'empty', code: 'E_ACCEPTS_EMPTY' });
