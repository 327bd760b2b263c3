// The contract's answer rule on the host, generated from the guest's: answerTag is the kit's own
// kit.answer (guest-runtime.js, run here in plain Node), so the validator, the novelty check and every
// environment that uses the kit read an `<answer>` tag the same way (docs/environment-contract.md).
import { loadPlainRuntime } from './runtime.js';

const OPEN = '<answer>';
const CLOSE = '</answer>';
const kit = loadPlainRuntime().kit;

/**
 * The trimmed text inside the one `<answer>…</answer>` tag; null when there is none, it is not closed, or there are
 * several.
 */
export function answerTag(text: string): string | null {
  return kit.answer(text);
}

/** What the host reads as a reference's answer: its answer tag's content, else the whole text, trimmed. */
export function answerContent(reference: string): string {
  return answerTag(reference) ?? reference.trim();
}

/**
 * The reference with the content of its answer tag replaced by `content`; just `content` when it has no (single) tag.
 */
export function withContent(reference: string, content: string): string {
  if (answerTag(reference) === null) return content;
  const start = reference.indexOf(OPEN) + OPEN.length;
  return reference.slice(0, start) + content + reference.slice(reference.indexOf(CLOSE, start));
}
