// Applies a list of string edit commands (swaps, reversals, rotations, deletions, insertions, moves, case flips)
// to a starting string and asks for the result, training exact step-by-step string manipulation.
// Difficulty: the string gets longer, the command list longer, and more kinds of command appear.

export const meta = {
  name: 'string-edit-commands',
  title: 'Apply a sequence of string edits',
  description: 'Apply a list of position- and letter-based edit commands to a starting string and give the exact, ' +
    'case-sensitive final string; no partial credit.',
  skills: ['strings', 'simulation'],
  levels: 10,
};

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
// kinds: how many entries of COMMANDS are in play (they are ordered from simplest to trickiest).
const LEVELS = [
  { length: 6, commands: 3, kinds: 3, upperShare: 0 },
  { length: 7, commands: 5, kinds: 4, upperShare: 0 },
  { length: 8, commands: 7, kinds: 6, upperShare: 0 },
  { length: 10, commands: 9, kinds: 7, upperShare: 0.2 },
  { length: 12, commands: 12, kinds: 8, upperShare: 0.3 },
  { length: 14, commands: 15, kinds: 9, upperShare: 0.3 },
  { length: 16, commands: 18, kinds: 9, upperShare: 0.4 },
  { length: 19, commands: 22, kinds: 9, upperShare: 0.4 },
  { length: 22, commands: 26, kinds: 9, upperShare: 0.5 },
  { length: 26, commands: 32, kinds: 9, upperShare: 0.5 },
];
function knobs(level) {
  return LEVELS[Math.min(Math.max(level, 1), LEVELS.length) - 1];
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';

function randomLetter(rng, upperShare) {
  const ch = rng.pick(LOWER.split(''));
  return rng.float() < upperShare ? ch.toUpperCase() : ch;
}

function flipCase(ch) {
  const up = ch.toUpperCase();
  return ch === up ? ch.toLowerCase() : up;
}

// Two distinct 1-based positions i < j.
function pair(rng, n) {
  const i = rng.int(1, n - 1);
  return [i, rng.int(i + 1, n)];
}

// Each command: make(rng, s, k) draws its parameters for the current string (or null when it does not fit),
// text renders it for the prompt, apply returns the new string. Positions are 1-based, as in the prompt.
const COMMANDS = [
  {
    make: (rng, s) => pair(rng, s.length),
    text: ([i, j]) => `swap the characters at positions ${i} and ${j}`,
    apply: (s, [i, j]) => {
      const a = s.split('');
      [a[i - 1], a[j - 1]] = [a[j - 1], a[i - 1]];
      return a.join('');
    },
  },
  {
    make: (rng, s) => pair(rng, s.length),
    text: ([i, j]) => `reverse the substring from position ${i} to position ${j} (inclusive)`,
    apply: (s, [i, j]) => s.slice(0, i - 1) + s.slice(i - 1, j).split('').reverse().join('') + s.slice(j),
  },
  {
    make: (rng, s, k) => {
      const i = rng.int(1, s.length);
      const ch = randomLetter(rng, k.upperShare);
      if (ch !== s[i - 1]) return [i, ch];
      // Same letter drawn: take the next one in the alphabet (same case) so the command changes something.
      const next = LOWER[(LOWER.indexOf(ch.toLowerCase()) + 1) % LOWER.length];
      return [i, ch === ch.toLowerCase() ? next : next.toUpperCase()];
    },
    text: ([i, ch]) => `replace the character at position ${i} with '${ch}'`,
    apply: (s, [i, ch]) => s.slice(0, i - 1) + ch + s.slice(i),
  },
  {
    make: (rng, s) => [rng.pick(['left', 'right']), rng.int(1, s.length - 1)],
    text: ([dir, n]) => dir === 'left'
      ? `rotate left by ${n} (the first ${n} character${n === 1 ? '' : 's'} move${n === 1 ? 's' : ''} to the end)`
      : `rotate right by ${n} (the last ${n} character${n === 1 ? '' : 's'} move${n === 1 ? 's' : ''} to the front)`,
    apply: (s, [dir, n]) => (dir === 'left' ? s.slice(n) + s.slice(0, n) : s.slice(s.length - n) + s.slice(0, s.length - n)),
  },
  {
    // Never shrink below 4 characters, so positions stay meaningful.
    make: (rng, s) => (s.length > 4 ? [rng.int(1, s.length)] : null),
    text: ([i]) => `delete the character at position ${i}`,
    apply: (s, [i]) => s.slice(0, i - 1) + s.slice(i),
  },
  {
    make: (rng, s, k) => [rng.int(1, s.length + 1), randomLetter(rng, k.upperShare)],
    text: ([i, ch]) => `insert '${ch}' so that it becomes the character at position ${i}`,
    apply: (s, [i, ch]) => s.slice(0, i - 1) + ch + s.slice(i - 1),
  },
  {
    make: (rng, s) => {
      const i = rng.int(1, s.length);
      let j = rng.int(1, s.length - 1);
      if (j >= i) j++;
      return [i, j];
    },
    text: ([i, j]) => `remove the character at position ${i} and reinsert it so that it ends up at position ${j}`,
    apply: (s, [i, j]) => {
      const rest = s.slice(0, i - 1) + s.slice(i);
      return rest.slice(0, j - 1) + s[i - 1] + rest.slice(j - 1);
    },
  },
  {
    make: (rng, s) => pair(rng, s.length),
    text: ([i, j]) => `toggle the case of every letter from position ${i} to position ${j} (inclusive)`,
    apply: (s, [i, j]) => s.slice(0, i - 1) + s.slice(i - 1, j).split('').map(flipCase).join('') + s.slice(j),
  },
  {
    // Letters taken from the current string, so the swap always changes something.
    make: (rng, s) => {
      const letters = [...new Set(s.split(''))];
      if (letters.length < 2) return null;
      const [a, b] = rng.shuffle(letters);
      return [a, b];
    },
    text: ([a, b]) => `swap letters: every '${a}' becomes '${b}' and every '${b}' becomes '${a}'`,
    apply: (s, [a, b]) => s.split('').map((ch) => (ch === a ? b : ch === b ? a : ch)).join(''),
  },
];

export function generate(rng, level) {
  const k = knobs(level);
  let s = '';
  for (let i = 0; i < k.length; i++) s += randomLetter(rng, k.upperShare);
  const start = s;
  const steps = [];
  while (steps.length < k.commands) {
    const kind = rng.int(0, k.kinds - 1);
    const args = COMMANDS[kind].make(rng, s, k);
    if (args === null) continue;
    const next = COMMANDS[kind].apply(s, args);
    // A no-op command (e.g. swapping two equal letters) teaches nothing; draw another.
    if (next === s) continue;
    steps.push(`${steps.length + 1}. ${COMMANDS[kind].text(args)}`);
    s = next;
  }
  const prompt = [
    `Start with the string "${start}" (${start.length} characters). Apply the following commands in order, each to the result of the previous one.`,
    'Positions are 1-based (the first character is position 1) and always refer to the current string. Letters are case-sensitive.',
    '',
    ...steps,
    '',
    'Give the final string exactly, with the correct upper and lower case and no quotes or spaces, as <answer>RESULT</answer>, where RESULT is the final string.',
  ].join('\n');
  return { prompt, answer: s };
}

export function solve(instance) {
  return `<answer>${instance.answer}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  if (text.length !== instance.answer.length) {
    return { score: 0, feedback: `expected ${instance.answer.length} characters, got ${Math.min(text.length, 100000)}` };
  }
  // Case is part of the task, so the comparison is exact.
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== instance.answer[i]) return { score: 0, feedback: `first difference at position ${i + 1}` };
  }
  return { score: 1, feedback: 'correct' };
}
