// The partially observed world family's design: its themes and colours, and how a design (layout, size,
// sensing, hazards, goal) is drawn from the author's rng, with the skills it exercises.
import type { PlainRng } from '../../../sandbox/runtime.js';
import { pickName } from './skeleton.js';

export const THEMES: Record<string, { place: string; cell: string; things: string[]; rooms: string[] }> = {
  cave: {
    place: 'a dark cave',
    cell: 'chamber',
    things: ['lantern', 'rope', 'pickaxe', 'crystal', 'map', 'flint', 'helmet', 'compass'],
    rooms: [
      'grotto',
      'shaft',
      'ledge',
      'pool',
      'crevice',
      'vault',
      'gallery',
      'tunnel',
      'hollow',
      'cavern',
      'sump',
      'chimney',
    ],
  },
  warehouse: {
    place: 'a warehouse floor',
    cell: 'bay',
    things: ['pallet', 'crate', 'drum', 'toolbox', 'scanner', 'ladder', 'cart', 'spool'],
    rooms: [
      'dock',
      'office',
      'mezzanine',
      'cold-room',
      'racking',
      'yard',
      'cage',
      'bench',
      'charging',
      'returns',
      'staging',
      'packing',
    ],
  },
  museum: {
    place: 'a museum after closing',
    cell: 'hall',
    things: ['vase', 'mask', 'scroll', 'coin', 'statuette', 'tablet', 'brooch', 'helm'],
    rooms: [
      'atrium',
      'rotunda',
      'archive',
      'foyer',
      'gallery',
      'cloister',
      'annex',
      'crypt',
      'library',
      'studio',
      'terrace',
      'lobby',
    ],
  },
  station: {
    place: 'a derelict space station',
    cell: 'module',
    things: ['battery', 'filter', 'sensor', 'fuse', 'valve', 'beacon', 'circuit', 'canister'],
    rooms: [
      'airlock',
      'bridge',
      'galley',
      'lab',
      'hangar',
      'reactor',
      'hydroponics',
      'quarters',
      'comms',
      'medbay',
      'storage',
      'gym',
    ],
  },
  orchard: {
    place: 'a walled orchard',
    cell: 'plot',
    things: ['basket', 'shears', 'ladder', 'hoe', 'bucket', 'gloves', 'seedbag', 'trowel'],
    rooms: [
      'gate',
      'well',
      'barn',
      'shed',
      'greenhouse',
      'pond',
      'hive',
      'press',
      'nursery',
      'meadow',
      'grove',
      'kiln',
    ],
  },
  ship: {
    place: 'a cargo ship below decks',
    cell: 'compartment',
    things: ['chart', 'sextant', 'anchor-chain', 'barrel', 'oar', 'net', 'bell', 'lamp'],
    rooms: [
      'hold',
      'galley',
      'brig',
      'bilge',
      'forecastle',
      'wardroom',
      'engine',
      'locker',
      'magazine',
      'sickbay',
      'mess',
      'bridge',
    ],
  },
};
export const COLOURS = [
  'amber',
  'blue',
  'crimson',
  'green',
  'ivory',
  'jade',
  'olive',
  'rust',
  'silver',
  'teal',
  'violet',
  'white',
];

export interface GridDesign {
  family: 'grid';
  theme: string;
  topology: 'grid' | 'rooms';
  goal: 'collect' | 'deliver';
  hazards: boolean;
  /** How the agent senses the world: look around the current place, scan along one way, or a detector's distance. */
  sense: 'look' | 'scan' | 'detector';
  /** Deliver goals: items carried at once (0 = no limit). */
  capacity: number;
  /** Directions as the move tool names them (grid topology). */
  directions: string[];
  names: Record<string, string>;
  levels: Array<{ size: number; items: number; hazards: number }>;
}

export function drawGrid(rng: PlainRng): GridDesign {
  const topology = rng.pick(['grid', 'rooms'] as const);
  const theme = rng.pick(Object.keys(THEMES));
  const hazards = rng.float() < 0.5;
  const goal = rng.pick(['collect', 'deliver'] as const);
  const capacity = goal === 'deliver' && rng.float() < 0.5 ? 1 : 0;
  return {
    family: 'grid',
    theme,
    topology,
    goal,
    hazards,
    sense: rng.pick(['look', 'scan', 'detector'] as const),
    capacity,
    directions: rng.pick([
      ['north', 'east', 'south', 'west'],
      ['up', 'right', 'down', 'left'],
    ]),
    names: {
      move: pickName(rng, ['move', 'walk', 'step', 'go']),
      go: pickName(rng, ['go_to', 'enter', 'walk_to']),
      look: pickName(rng, ['look', 'look_around', 'survey', 'inspect']),
      scan: pickName(rng, ['scan', 'peer', 'search_ahead']),
      detect: pickName(rng, ['detect', 'ping', 'sense']),
      take: pickName(rng, ['take', 'pick_up', 'grab', 'collect']),
      drop: pickName(rng, ['drop', 'put_down', 'leave']),
      finish: pickName(rng, ['finish', 'exit', 'report_done', 'end_run']),
    },
    levels: Array.from({ length: 6 }, (_, i) => ({
      size: topology === 'grid' ? ([4, 4, 5, 5, 6, 6][i] as number) : ([7, 8, 9, 10, 12, 12][i] as number),
      items: (capacity === 1 ? [2, 2, 2, 3, 3, 3] : [2, 2, 3, 3, 4, 4])[i] as number,
      hazards: hazards ? ([1, 1, 2, 2, 3, 3][i] as number) : 0,
    })),
  };
}

export const gridSkills = (x: GridDesign): string[] => [
  'exploration',
  'planning',
  'tool-use',
  x.topology === 'grid' ? 'grids' : 'graph-traversal',
  x.goal === 'deliver' ? 'multi-step-state-changes' : 'information-gathering',
];
