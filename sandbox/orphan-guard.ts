// Kills this sandbox worker when its supervisor dies. A worker wedged in guest code never sees its IPC
// channel close, so a thread of its own watches the parent pid and SIGKILLs the whole process.
import { Worker } from 'node:worker_threads';

const GUARD = `
const { workerData } = require('node:worker_threads');
setInterval(() => {
  if (process.ppid !== workerData.parent) process.kill(workerData.self, 'SIGKILL');
}, workerData.everyMs);
`;

/** Starts the guard thread; it does not keep the process alive. */
export function guardAgainstOrphaning(everyMs = 250): void {
  const thread = new Worker(GUARD, {
    eval: true,
    workerData: { parent: process.ppid, self: process.pid, everyMs },
    resourceLimits: { maxOldGenerationSizeMb: 16 },
  });
  thread.unref();
  thread.on('error', () => {}); // a guard that fails leaves the IPC 'disconnect' path, the old behaviour
}
