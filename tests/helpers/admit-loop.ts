// A writer process for crash and concurrency tests: admits variant sources into a library (a SQLite folder or a
// PostgreSQL URL) in an endless loop until it is killed. Run as
//   node --import tsx tests/helpers/admit-loop.ts DIR START_INDEX
// Every admission that returned is reported on stdout as `<status> <name> <version> <hash>` (written
// synchronously: a reported line is committed), and `ready` follows the first one.
// Imported (not run), it exports spawnAdmitLoop() for the tests.
import { fileURLToPath } from 'node:url';
import { openLibrary } from '../../library/open.js';
import { fakeAdmission, fakeRejection, sampleMeta, sampleSource, variantSource } from './library-fixtures.js';
import { runIfMain, spawnLoop, type Loop } from './killable.js';

const SCRIPT = fileURLToPath(import.meta.url);

/** Rejections the loop keeps, small so that the retention delete runs often. */
export const LOOP_REJECTION_RETENTION = 25;
export const LOOP_NAMES = ['crash-alpha', 'crash-beta', 'crash-gamma', 'crash-delta', 'crash-epsilon'] as const;
/** A safety net: the loop stops by itself after this long even if nobody kills it. */
const MAX_RUN_MS = 120_000;

async function main(dir: string, start: number): Promise<void> {
  const library = openLibrary(dir, { create: true, rejectionRetention: LOOP_REJECTION_RETENTION });
  const metas = LOOP_NAMES.map((name, k) =>
    sampleMeta(name, { levels: 3 + k, skills: k % 2 ? ['graphs', 'search'] : ['arithmetic'] }),
  );
  const bases = metas.map((meta) => sampleSource(meta));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const deadline = Date.now() + MAX_RUN_MS;
  let ready = false;
  for (let i = start; Date.now() < deadline; i++) {
    const k = i % LOOP_NAMES.length;
    const meta = metas[k]!;
    const result = await library.admit(fakeAdmission(variantSource(bases[k]!, i), meta, `author-${i % 3}`));
    if (!result.env) throw new Error(`unexpected ${result.status}`);
    say(`${result.status} ${result.env.name} ${result.env.version} ${result.env.hash}`);
    if (!ready) {
      say('ready');
      ready = true;
    }
    // The no-op path: the same name's code from one round ago (admitted by this or an earlier writer,
    // or, just after start, possibly never: then it is admitted now).
    if (i % 3 === 1) {
      const again = await library.admit(fakeAdmission(variantSource(bases[k]!, i - LOOP_NAMES.length), meta));
      if (!again.env) throw new Error(`unexpected ${again.status}`);
      say(`${again.status} ${again.env.name} ${again.env.version} ${again.env.hash}`);
    }
    if (i % 4 === 2) await library.recordRejection(fakeRejection(`${variantSource(bases[k]!, i)}// rejected\n`, meta));
  }
  await library.close();
}

export interface AdmitLoop extends Loop {
  /** hash -> name@version of every admission the child reported as returned. */
  committed: Map<string, string>;
}

export function spawnAdmitLoop(dir: string, start: number, readyTimeoutMs = 20_000): AdmitLoop {
  const committed = new Map<string, string>();
  const loop = spawnLoop(SCRIPT, dir, start, readyTimeoutMs, (line) => {
    const [status, name, version, hash] = line.split(' ');
    if ((status === 'admitted' || status === 'exists') && hash) committed.set(hash, `${name}@${version}`);
  });
  return { ...loop, committed };
}

runIfMain(SCRIPT, main);
