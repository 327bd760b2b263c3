// The offline author's episodic families, one entry each: how a design is drawn from the author's rng,
// compiled to the skeleton's family code, and which skills and words describe it.
import type { PlainRng } from '../../../sandbox/runtime.js';
import { drawRecords, recordsCode, recordsSkills, type RecordsDesign } from './records.js';
import { drawGrid, gridCode, gridSkills, type GridDesign } from './grid.js';
import { drawWebapp, webappCode, webappSkills, type WebappDesign } from './webapp.js';
import type { EpisodicFamily, FamilyCode } from './skeleton.js';

export type EpisodicDesign = RecordsDesign | GridDesign | WebappDesign;

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
        title:
          `Update the matching ${x.domain} records through ${x.discover}, ${x.lookup} ` +
          `lookup and ${x.update} tools`,
        idea:
          `A hidden store of ${x.domain} records behind generated tools (${x.discover} to discover ids, ` +
          `${x.lookup} lookups, ${x.update} updates). The agent must find every record matching up to ` +
          `${x.preds.length} constraints (${x.preds.map((p) => `${p.field} ${p.kind}`).join(', ')}) and change ` +
          `one field on exactly those, under the stated policy (${x.rules.join(', ') || 'no extra rules'}), ` +
          `then end the session; the score checks every record in the final state.`,
        scaling:
          `Levels 1–${x.levels.length}: records grow from ${x.levels[0]?.records} to ` +
          `${x.levels.at(-1)?.records}, constraints from 1 to ${x.levels.at(-1)?.preds}` +
          `${x.rules.includes('locked') ? ', and locked records join from level 3' : ''}.`,
      };
    },
  },
  grid: {
    signature: ['exploration', 'planning'],
    draw: drawGrid,
    code: (d) => gridCode(d as GridDesign),
    skills: (d) => gridSkills(d as GridDesign),
    words: (d) => {
      const x = d as GridDesign;
      const where = x.topology === 'grid' ? 'grid of cells with walls' : 'graph of named rooms';
      const goal =
        x.goal === 'collect'
          ? 'pick up the named items and return to the start'
          : 'carry the named items to a named place';
      const hazards = x.hazards ? ' and without entering an unsafe place' : '';
      return {
        tag: `${x.theme}-${x.topology}-${x.goal}${x.hazards ? '-hazards' : ''}`,
        title:
          `${x.goal === 'collect' ? 'Collect the named items' : 'Carry the named items to a place'} in a ` +
          `partially observed ${x.theme} ${x.topology === 'grid' ? 'grid' : 'room graph'}`,
        idea:
          `A hidden ${where} (${x.theme}) explored through move and look tools; the agent sees only its ` +
          `surroundings. The goal is to ${goal} without picking up a decoy${hazards}; the score checks the ` +
          `items' places and the agent's in the final state.`,
        scaling:
          `Levels 1–${x.levels.length}: the world grows from ${x.levels[0]?.size} to ${x.levels.at(-1)?.size} ` +
          `${x.topology === 'grid' ? 'cells a side' : 'rooms'} and the items from ${x.levels[0]?.items} to ` +
          `${x.levels.at(-1)?.items}${x.hazards ? ', with more unsafe places' : ''}.`,
      };
    },
  },
  webapp: {
    signature: ['web-navigation', 'planning'],
    draw: drawWebapp,
    code: (d) => webappCode(d as WebappDesign),
    skills: (d) => webappSkills(d as WebappDesign),
    words: (d) => {
      const x = d as WebappDesign;
      const pages = x.stages.map((s) => (s === 'find' ? x.find : s));
      return {
        tag: `${x.theme}-site-${pages.join('-')}`,
        title: `Complete a ${x.theme} transaction on a generated web site (${pages.join(', ')} pages)`,
        idea:
          `A finite-state web application (${x.theme}) whose pages are ${pages.join(' then ')}, driven by ` +
          `read, type and click tools. The agent must reach the committed state with the item, ` +
          `${x.stages.includes('options') ? 'option ' : ''}and form details the prompt asks for; item codes ` +
          `are only shown on the site. The score checks what the site committed.`,
        scaling:
          `Levels 1–${x.levels.length}: the catalogue grows from ${x.levels[0]?.items} to ` +
          `${x.levels.at(-1)?.items} items and the form from ${x.levels[0]?.fields} to ` +
          `${x.levels.at(-1)?.fields} fields.`,
      };
    },
  },
} as Record<EpisodicFamily, FamilyEntry>;
