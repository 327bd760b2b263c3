// Names a verifier can look up, read from the instance itself: a verifier that indexes the instance by the
// answer (`stock[given] > 0`, `valid[given]`) pays a name of the instance's own machinery,
// such as an array's `length` or a key of a nested record, which no fixed list of names holds. Every own key
// at every depth of the instance's JSON, and `length` (the prompt is a string; arrays have it too), are sent
// as format-only answers at zero tolerance, except names that may be honest answers.
import { normalizeAnswer, shapeOf, tokenize } from './answers.js';

/**
 * Own keys at every depth of `instance` (breadth first, bounded), with `length` first where a string or array exists.
 */
export function instanceNames(instance: unknown, maxNodes = 5_000): string[] {
  const names = new Set<string>();
  const queue: unknown[] = [instance];
  let lengthy = false;
  for (let i = 0; i < queue.length && i < maxNodes; i++) {
    const node = queue[i];
    if (typeof node === 'string') lengthy = true;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      lengthy = true;
      for (const v of node.slice(0, 1_000)) queue.push(v);
      continue;
    }
    for (const [k, v] of Object.entries(node).slice(0, 1_000)) {
      if (k.length > 0 && k.length <= 60) names.add(k);
      queue.push(v);
    }
  }
  return [...(lengthy ? ['length'] : []), ...[...names].filter((n) => n !== 'length')];
}

/**
 * The instance's names that are no honest answer: not the reference, not an answer (or an item of one) some
 * instance of the sample has, and not a token of the prompt where it could be one (any name when the answer
 * is not a number; a numeric name when it is), since a task may accept any name it shows.
 */
export function instanceNameAnswers(
  instance: { prompt: string },
  content: string,
  taken: Set<string>,
): Array<[string, string]> {
  const numeric = (v: string) => ['integer', 'number'].includes(shapeOf(v).kind);
  const answerNumeric = numeric(content);
  const text = instance.prompt.slice(0, 50_000).toLowerCase();
  // A token of the prompt is a substring of it: the prompt is tokenized only for a name found in it.
  let tokens: Set<string> | undefined;
  const inPrompt = (low: string) => text.includes(low) && (tokens ??= new Set(tokenize(text, 20_000))).has(low);
  const items = takenItems(taken);
  const right = normalizeAnswer(content).toLowerCase();
  return instanceNames(instance)
    .filter((name) => {
      const low = normalizeAnswer(name).toLowerCase();
      if (!low || low === right || taken.has(low) || items.has(low)) return false;
      return !((!answerNumeric || numeric(name)) && inPrompt(low));
    })
    .map((name) => [`a name the instance holds ("${name.slice(0, 30)}")`, name]);
}

/**
 * The tokens of the sample's answers: one set per `taken` (the hack stage passes the same set for every instance of a
 * validation).
 */
const itemsOf = new WeakMap<Set<string>, Set<string>>();
function takenItems(taken: Set<string>): Set<string> {
  let items = itemsOf.get(taken);
  if (!items) itemsOf.set(taken, (items = new Set([...taken].flatMap((t) => tokenize(t, 200)))));
  return items;
}
