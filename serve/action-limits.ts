// The host's check of an agent's action against contract v2's limits, made before the action is
// serialised, compared or sent to the sandbox: an action no tool schema can accept (nested deeper than any
// schema reaches, arguments over maxArgsChars, an over-long tool name) becomes a bounded stand-in that the
// sandbox rejects as a turn (the agent's mistake, never an environment failure), naming what was wrong.
// A control character in a tool name, an argument name or a string argument is refused the same way: an
// environment that echoes its input into an observation must never be made to carry one (contract/text.ts).
// An admitted action then takes its one form (canonicalAction), the form every path keeps, journals and compares.
import { EPISODIC_LIMITS } from '../contract/episodic.js';
import { codePoint, LINE_CONTROL, PROSE_CONTROL } from '../contract/text.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { boundDepth } from '../validators/bounded.js';

/** Object params (1) nest at most maxSchemaDepth more containers; with the action object that is this many levels. */
export const MAX_ACTION_DEPTH = EPISODIC_LIMITS.maxSchemaDepth + 2;
/** Characters of a refused action kept (journal, memory, the episode's turns). */
const EXCERPT_CHARS = 200;

/** A refused action as journaled and replayed: no `tool`, so the sandbox rejects it without running the environment. */
export interface RefusedAction {
  refused: string;
  excerpt: string;
}

export function isRefused(action: unknown): action is RefusedAction {
  return (
    action !== null &&
    typeof action === 'object' &&
    typeof (action as RefusedAction).refused === 'string' &&
    !('tool' in action)
  );
}

/** True when `value` nests arrays/objects deeper than `max` levels; never recurses past max + 1. */
export function deeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max <= 0) return true;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (deeperThan(v, max - 1)) return true;
  return false;
}

/** The first control character in the action's strings: tab and newline pass in string values only. */
function controlIn(value: unknown, key = false): string | null {
  if (typeof value === 'string') return (key ? LINE_CONTROL : PROSE_CONTROL).exec(value)?.[0] ?? null;
  if (value === null || typeof value !== 'object') return null;
  for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    const found = (typeof k === 'string' ? controlIn(k, true) : null) ?? controlIn(v);
    if (found) return found;
  }
  return null;
}

/** Why `action` breaks the contract's limits (null when it is within them: the sandbox checks it against its tool). */
export function actionProblem(action: unknown): string | null {
  if (deeperThan(action, MAX_ACTION_DEPTH))
    return `the action is nested deeper than ${MAX_ACTION_DEPTH} levels, deeper than any tool's parameters reach`;
  // the sandbox names its shape
  if (action === null || typeof action !== 'object' || Array.isArray(action)) return null;
  const { tool, args } = action as { tool?: unknown; args?: unknown };
  if (typeof tool === 'string' && tool.length > EPISODIC_LIMITS.maxToolNameChars)
    return `the tool name has ${tool.length} characters, over the limit of ${EPISODIC_LIMITS.maxToolNameChars}`;
  const argsChars = args === undefined ? 0 : (JSON.stringify(args)?.length ?? 0);
  if (argsChars > EPISODIC_LIMITS.maxArgsChars)
    return `the arguments take ${argsChars} characters, over the limit of ${EPISODIC_LIMITS.maxArgsChars}`;
  const chars = JSON.stringify(action)?.length ?? 0;
  if (chars > EPISODIC_LIMITS.maxArgsChars + 512)
    return `the action takes ${chars} characters, over the limit of ${EPISODIC_LIMITS.maxArgsChars + 512}`;
  const control = (typeof tool === 'string' ? LINE_CONTROL.exec(tool)?.[0] : undefined) ?? controlIn(args);
  if (control)
    return (
      `the action holds the control character ${codePoint(control)}: tool names, argument names and string ` +
      `values may not (tab and newline only in string values)`
    );
  return null;
}

/** `action` itself when it is within the limits, else its refused stand-in (a bounded excerpt and the reason). */
export function admitAction(action: unknown): unknown {
  const problem = actionProblem(action);
  if (problem === null) return action;
  // JSON escapes C0 controls; the others (C1, bidi) are escaped here, so the excerpt never carries one.
  const excerpt = (JSON.stringify(boundDepth(action, MAX_ACTION_DEPTH)) ?? String(action))
    .slice(0, EXCERPT_CHARS)
    .replace(new RegExp(LINE_CONTROL.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return { refused: problem, excerpt } satisfies RefusedAction;
}

const episodic = loadPlainRuntime().episodic;

/**
 * The one form of an action wherever the host keeps, journals, digests, compares or shows it (V27-2, issue 28): made
 * once, before step sees it, by the sandbox's own normaliseAction against the environment's `tools` (the call as step
 * plays it: `{tool, args}`, args {} where none was sent, keys sorted at every depth), so a live step, a replay of the
 * journal and a snapshot hold the same text however the client wrote it; an action the check refuses (or its stand-in
 * over the limits) keeps its values with its keys sorted. Idempotent: the form of a form is itself.
 */
export function canonicalAction(tools: unknown, raw: unknown): unknown {
  const action = admitAction(raw);
  const checked = episodic.normaliseAction(tools, action);
  return checked.problem === null ? checked.action : JSON.parse(episodic.canonical(action));
}

/** The observation of a refused action's turn (the sandbox's own message would only say it has no tool). */
export function refusedObservation(action: RefusedAction): string {
  return `error: ${action.refused}`;
}
