// npm's prepare step: builds dist/ when it is missing or older than a source file (npm ci in a clone, a
// changed source), then links envforge into node_modules/.bin. `npx envforge` in the project itself runs
// prepare again (npm exec installs the project's own folder into its cache): with dist/ current that is a
// check of a few hundred file times, not a minute of rebuilding.
const fs = require('node:fs');
const path = require('node:path');
const { execSync } = require('node:child_process');
const root = path.resolve(__dirname, '..');
const main = path.join(root, 'dist', 'cli', 'main.js');
const SKIP = new Set(['node_modules', 'dist', 'generated', 'test-results', 'tests', 'seeds']);

/** The newest modification time of the files the build reads (sources, copied assets, configs), outside SKIP. */
function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || (entry.name.startsWith('.') && entry.isDirectory())) continue;
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(file));
    else if (/\.(ts|js|css|json|py)$/.test(entry.name)) newest = Math.max(newest, fs.statSync(file).mtimeMs);
  }
  return newest;
}

const built = fs.existsSync(main) ? fs.statSync(main).mtimeMs : 0;
if (built === 0 || newestSource(root) > built) execSync('npm run build', { cwd: root, stdio: 'inherit' });
else console.error('envforge: dist/ is up to date with the sources; not rebuilt');
require('./link-bin.cjs');
