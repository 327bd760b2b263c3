// A supervisor process whose only sandbox worker is wedged in a guest loop: it prints `worker PID` and
// `ready`, then idles until killed, for the test that no worker outlives a SIGKILLed supervisor.
import { SandboxPool } from '../../sandbox/pool.js';
import { envSource } from './env-source.js';

const forever = { callTimeoutMs: 600_000, loadTimeoutMs: 600_000, sliceMs: 600_000, jobTimeoutMs: 600_000 };
const pool = new SandboxPool({ workers: 1, graceMs: 600_000, limits: forever });
void pool.run({ source: envSource({ generate: 'for (;;) {}' }), calls: [{ op: 'episode', seed: 1, level: 1 }] });
const poll = setInterval(() => {
  const [pid] = pool.workerPids();
  if (pid === undefined || pid < 0) return;
  clearInterval(poll);
  // Give the worker time to load the module and enter the loop.
  setTimeout(() => {
    process.stdout.write(`worker ${pid}\nready\n`);
  }, 1_500);
}, 50);
setInterval(() => {}, 60_000);
