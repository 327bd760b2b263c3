// Junk of every length band (100 characters to a megabyte; letters, prose, digits, open tags), none of it
// holding the answer: length bonuses and slow patterns show here.
import { zeroFamilyCheck } from './battery.js';

export const hugeCheck = zeroFamilyCheck({ name: 'huge', family: 'huge', code: 'E_ACCEPTS_HUGE' });
