// The offline author's episodic families, one entry each: how a design is drawn from the author's rng,
// compiled to the skeleton's family code, and which skills and words describe it.
import type { PlainRng } from '../../../sandbox/runtime.js';
import { drawRecords, recordsCode, recordsSkills, type RecordsDesign } from './records.js';
import type { EpisodicFamily, FamilyCode } from './skeleton.js';

export type EpisodicDesign = RecordsDesign;

export interface FamilyEntry {
  /** The skills every design of the family trains, the family's own first: what the architect aims it at. */
  signature: string[];
  draw(rng: PlainRng): EpisodicDesign;
  code(design: EpisodicDesign): FamilyCode;
  skills(design: EpisodicDesign): string[];
  /** Kebab words for names, and a title and idea for the spec. */
  words(design: EpisodicDesign): { tag: string; title: string; idea: string; scaling: string };
}

export const EPISODIC_FAMILY: Record<EpisodicFamily, FamilyEntry> = {
  records: {
    signature: ['information-gathering', 'policy-following', 'multi-step-state-changes'],
    draw: drawRecords,
    code: (d) => recordsCode(d as RecordsDesign),
    skills: (d) => recordsSkills(d as RecordsDesign),
    words: (d) => {
      const x = d as RecordsDesign;
      return {
        tag: `${x.domain}-desk-${x.discover}-${x.lookup}`,
        title: `Update the matching ${x.domain} records through ${x.discover}, ${x.lookup} lookup and ${x.update} tools`,
        idea: `A hidden store of ${x.domain} records behind generated tools (${x.discover} to discover ids, ${x.lookup} lookups, ${x.update} updates). The agent must find every record matching up to ${x.preds.length} constraints (${x.preds.map((p) => `${p.field} ${p.kind}`).join(', ')}) and change one field on exactly those, under the stated policy (${x.rules.join(', ') || 'no extra rules'}), then end the session; the score checks every record in the final state.`,
        scaling: `Levels 1–${x.levels.length}: records grow from ${x.levels[0]?.records} to ${x.levels.at(-1)?.records}, constraints from 1 to ${x.levels.at(-1)?.preds}${x.rules.includes('locked') ? ', and locked records join from level 3' : ''}.`,
      };
    },
  },
} as Record<EpisodicFamily, FamilyEntry>;
