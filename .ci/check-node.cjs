// npm's preinstall step: envforge needs Node.js 24 (isolated-vm 7 has prebuilt binaries for it and does not
// build on older Node). On an older Node, stop before any native build with one line saying what to run.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`envforge needs Node.js 24 or newer; this is Node ${process.version} (${process.execPath}). Run: source .ci/node24.sh && npm ci`);
  process.exit(1);
}
