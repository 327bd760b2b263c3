// Answers that are format alone, or mean something only to the verifier's machinery (empty or placeholder
// tags, match-anything patterns, inherited property names, names read from the instance itself): none is a
// solution, so none may earn anything.
import { zeroFamilyCheck } from './battery.js';

export const formatOnlyCheck = zeroFamilyCheck({
  name: 'format-only',
  family: 'format-only',
  code: 'E_ACCEPTS_FORMAT_ONLY',
});
