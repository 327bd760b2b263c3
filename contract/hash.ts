// The identity of code: a module's SHA-256, which names its file in the library and its versions.
import { createHash } from 'node:crypto';

export function hashSource(source: string): string {
  return createHash('sha256').update(source, 'utf8').digest('hex');
}
