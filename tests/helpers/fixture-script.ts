// Runs a red-team fixture script (a .mjs in a fixture folder that prints one JSON line last) with this Node, and
// returns that line parsed; a failing script rejects with the tail of its stderr.
import { execFile } from 'node:child_process';
import { join } from 'node:path';

/** The runner of the scripts in `folder`: runScript(name, args, timeout) resolves to the script's last stdout line. */
export const scriptRunner =
  (folder: string) =>
  (name: string, args: string[], timeout: number): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) =>
      execFile(process.execPath, [join(folder, name), ...args], { timeout }, (error, stdout, stderr) =>
        error
          ? reject(new Error(`${name} failed: ${stderr.slice(-2000)}`))
          : resolve(JSON.parse(stdout.trim().split('\n').at(-1) as string)),
      ),
    );
