// npm's prepare step, after the build: links the project's own command into node_modules/.bin, so
// `npx envforge` in a clone runs the dist/ that `npm ci` built instead of installing the folder again
// into npx's cache (a minute of rebuilding, and a cache an interrupted first run leaves broken).
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(__dirname, '..');
const main = path.join(root, 'dist', 'cli', 'main.js');
const bin = path.join(root, 'node_modules', '.bin');
if (fs.existsSync(main) && fs.existsSync(path.join(root, 'node_modules'))) {
  fs.chmodSync(main, 0o755);
  fs.mkdirSync(bin, { recursive: true });
  const link = path.join(bin, 'envforge');
  fs.rmSync(link, { force: true });
  fs.symlinkSync(path.relative(bin, main), link);
}
