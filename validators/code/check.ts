// The code kind's view of the checks registry: a check plans requests (an instance by seed and level, and
// the programs to score on it) and judges the episodes that come back.
import type { EpisodeResult } from '../../sandbox/episodes.js';
import type { Check, CheckContext } from '../checks/contract.js';
import type { CodeRequest } from './run.js';

export type CodeCheckContext = CheckContext;
export type CodeCheck = Check<CodeCheckContext, CodeRequest, EpisodeResult>;
