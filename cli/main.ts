#!/usr/bin/env node
// The `envforge` executable. It checks the Node version before anything loads a native addon (isolated-vm and
// better-sqlite3 are built for Node 24, and an older Node crashes inside them), then runs the command line.
const major = Number(process.versions.node.split('.')[0]);
if (!(major >= 24)) {
  process.stderr.write(
    `envforge needs Node.js 24 or newer, and this is Node ${process.versions.node} (${process.execPath}): ` +
      `install Node 24, or in a clone run \`source .ci/node24.sh\`.\n`,
  );
  process.exit(1);
}
const { runCli } = await import('./program.js');

// A reader that stops early (`envforge library list | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await runCli(process.argv.slice(2));
