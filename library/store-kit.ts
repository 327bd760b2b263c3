// What every library store shares beside the contract: timestamps, JSON columns, and the rules an input
// must meet before any store writes it (incidents), so the stores judge inputs alike.
import { LibraryError, type IncidentInput } from './contract.js';

export const now = (): string => new Date().toISOString();

export const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** JSON text of a value (undefined is null); a value JSON cannot hold is a LibraryError. */
export function toJson(value: unknown, what: string): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    throw new LibraryError(`${what} cannot be stored as JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** Incidents kept at most; the oldest go first. */
export const INCIDENT_RETENTION = 10_000;
const MAX_MESSAGE_CHARS = 2_000;
const MAX_RESPONSE_CHARS = 64 * 1024;

/** Checks an incident and bounds its message and response; a LibraryError says what is missing. */
export function checkIncident(input: IncidentInput): { message: string; response: string | null } {
  const bad = (what: string) => new LibraryError(`an incident needs ${what}`);
  if (!/^[0-9a-f]{64}$/.test(input.hash)) throw bad('the SHA-256 hash of the module');
  if (typeof input.name !== 'string' || input.name === '' || !Number.isSafeInteger(input.version) || input.version < 1) throw bad('the environment name and version');
  if (!Number.isSafeInteger(input.seed) || input.seed < 0 || !Number.isSafeInteger(input.level) || input.level < 1) throw bad('a seed (a non-negative safe integer) and a level');
  if (typeof input.code !== 'string' || input.code === '' || typeof input.fn !== 'string') throw bad('a code and a function name');
  if (input.origin !== 'serve' && input.origin !== 'export') throw bad("an origin of 'serve' or 'export'");
  return { message: String(input.message).slice(0, MAX_MESSAGE_CHARS), response: input.response === undefined ? null : input.response.slice(0, MAX_RESPONSE_CHARS) };
}
