// Vitest global setup: prints the runtime the suite runs under (Node and isolated-vm versions), so a
// CI log shows which runtime its results hold for.
import { createRequire } from 'node:module';

export default function setup(): void {
  const require = createRequire(import.meta.url);
  const ivm = (require('isolated-vm/package.json') as { version: string }).version;
  process.stdout.write(
    `envforge tests: node ${process.version} (ABI ${process.versions.modules}), isolated-vm ${ivm}, ` +
      `${process.platform}-${process.arch}\n`,
  );
}
