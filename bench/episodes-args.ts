// The command line shared by the side-by-side episode benchmarks: another build's dist/ and a number of rounds.

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** BASE_DIST and ROUNDS from argv, or a usage error (exit 2) naming the script. */
export function baseDistAndRounds(script: string, defaultRounds: number): { baseDist: string; rounds: number } {
  const baseDist = process.argv[2];
  const rounds = Number(process.argv[3] ?? defaultRounds);
  if (!baseDist || !Number.isInteger(rounds) || rounds < 1) {
    process.stderr.write(`usage: node dist/bench/${script} BASE_DIST [ROUNDS]\n`);
    process.exit(2);
  }
  return { baseDist, rounds };
}
