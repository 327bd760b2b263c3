// Parsers for CLI option values: each names the flag and the bad value in its error.
import { InvalidArgumentError } from 'commander';

export function integerOption(flag: string, min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${flag} needs an integer from ${min} to ${max}, got "${value}"`);
    }
    return n;
  };
}

export const DATABASE_HELP =
  'a PostgreSQL library, postgres://USER@HOST/DB (default: $ENVFORGE_DATABASE_URL); instead of --library';
