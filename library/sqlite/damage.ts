// A damaged index file (a bad page, a torn write) turns SQLite's corruption errors into one LibraryError
// that names the file and what to run, from every method of the library, instead of a stack trace.
import { LibraryError } from '../contract.js';

const DAMAGE_CODES = /^SQLITE_(CORRUPT|NOTADB|IOERR)/;

const codeOf = (error: unknown): string => {
  const own = (error as { code?: unknown } | null)?.code;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof own === 'string' && own.startsWith('SQLITE_') ? own : typeof cause === 'string' ? cause : '';
};

/** The error a caller sees for a damaged index: the file, SQLite's words, and `envforge library check`. */
export function damageError(error: unknown, indexFile: string, dir: string): unknown {
  const code = codeOf(error);
  if (!DAMAGE_CODES.test(code)) return error;
  const said = ((error as { cause?: Error }).cause ?? (error as Error)).message;
  return new LibraryError(
    `the library index ${indexFile} is damaged (${code}: ${said}). See what is damaged with \`envforge ` +
      `library check --library ${dir}\`, then restore the folder from a backup (the module files in envs/ are ` +
      `checked by their hashes)`,
    { cause: error },
  );
}

/** The library, with every method's SQLite damage errors (thrown or rejected) turned into damageError. */
export function reportingDamage<T extends object>(library: T, indexFile: string, dir: string): T {
  return new Proxy(library, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return function (this: unknown, ...args: unknown[]) {
        try {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(
            this === receiver ? target : this,
            args,
          );
          return result instanceof Promise
            ? result.catch((error: unknown) => Promise.reject(damageError(error, indexFile, dir)))
            : result;
        } catch (error) {
          throw damageError(error, indexFile, dir);
        }
      };
    },
  });
}
