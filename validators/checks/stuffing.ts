// Text around a wrong answer (keywords, the prompt's words, model-shaped reasoning, the same wrong answer in
// every surface form a model writes) must add nothing to what the bare wrong answer earns, and keywords
// alone nothing at all: each stuffed probe is judged by what it adds to its bare pair.
import { zeroFamilyCheck } from './battery.js';

export const stuffingCheck = zeroFamilyCheck({ name: 'stuffing', family: 'stuffing', code: 'E_ACCEPTS_STUFFING' });
