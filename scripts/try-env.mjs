// Dev-only harness: runs an environment module in plain Node (NOT the sandbox) and prints a quick
// health table, so seed authors can iterate before the sandboxed validator exists.
// Usage: node scripts/try-env.mjs seeds/foo.js [seedsPerLevel]
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const runtimeSource = readFileSync(new URL('../sandbox/guest-runtime.js', import.meta.url), 'utf8');
const install = new Function(`${runtimeSource}; return envforgeInstallRuntime;`)();
const rt = install(globalThis, { lockdown: false });
globalThis.kit = rt.kit;

function rngFor(name, seed, level) {
  const h = createHash('sha256').update(`envforge-rng-v1\u0000${name}\u0000${seed}\u0000${level}`).digest();
  return rt.makeRng(h.readUInt32LE(0), h.readUInt32LE(4), h.readUInt32LE(8), h.readUInt32LE(12));
}
const file = process.argv[2];
const perLevel = Number(process.argv[3] ?? 60);
const env = await import(pathToFileURL(resolve(file)).href);
const { meta } = env;
console.log(meta.name, '-', meta.title, '| skills', meta.skills.join(','), '| levels', meta.levels);
const score = (v) => (typeof v === 'number' ? v : v.score);
let problems = 0;
const fail = (msg) => { problems++; if (problems < 15) console.log('  PROBLEM', msg); };
console.log('level  promptLen  instChars  genMs   solveMs  verifyMs  distinctPrompts  topAnswerShare  otherRefPass  plus1Pass');
for (let level = 1; level <= meta.levels; level++) {
  const insts = []; const refs = []; let gMs = 0, sMs = 0, vMs = 0;
  for (let seed = 0; seed < perLevel; seed++) {
    let t = performance.now();
    const inst = env.generate(rngFor(meta.name, seed, level), level);
    gMs += performance.now() - t;
    const again = env.generate(rngFor(meta.name, seed, level), level);
    if (JSON.stringify(again) !== JSON.stringify(inst)) fail(`nondeterministic at seed ${seed} level ${level}`);
    if (JSON.stringify(JSON.parse(JSON.stringify(inst))) !== JSON.stringify(inst)) fail('instance not plain JSON');
    t = performance.now();
    const ref = env.solve(JSON.parse(JSON.stringify(inst)));
    sMs += performance.now() - t;
    t = performance.now();
    const s = score(env.verify(JSON.parse(JSON.stringify(inst)), ref));
    vMs += performance.now() - t;
    if (s !== 1) fail(`reference scores ${s} at seed ${seed} level ${level}: ${ref}`);
    for (const probe of ['', '   ', '<answer></answer>', inst.prompt, `<answer>${inst.prompt}</answer>`, 'x'.repeat(200000), '<answer>' + 'a'.repeat(100000) + '</answer>']) {
      const ps = score(env.verify(JSON.parse(JSON.stringify(inst)), probe));
      if (!(ps >= 0 && ps <= 1)) fail(`score out of range ${ps}`);
      if (ps >= 0.5) fail(`probe ${JSON.stringify(probe.slice(0, 40))} scores ${ps} at level ${level}`);
    }
    insts.push(inst); refs.push(ref);
  }
  const counts = new Map(); for (const r of refs) counts.set(r, (counts.get(r) ?? 0) + 1);
  const top = Math.max(...counts.values()) / refs.length;
  let otherPass = 0, plusPass = 0;
  for (let i = 0; i < insts.length; i++) {
    const other = refs[(i + 1) % refs.length];
    if (score(env.verify(insts[i], other)) >= 1) otherPass++;
    const plus = refs[i].replace(/-?\d+/, (m) => String(Number(m) + 1));
    if (plus !== refs[i] && score(env.verify(insts[i], plus)) >= 1) plusPass++;
  }
  const avg = (xs) => (xs.reduce((a, b) => a + b, 0) / xs.length);
  console.log(String(level).padStart(5), String(Math.round(avg(insts.map((i) => i.prompt.length)))).padStart(10),
    String(Math.round(avg(insts.map((i) => JSON.stringify(i).length)))).padStart(10),
    (gMs / perLevel).toFixed(3).padStart(7), (sMs / perLevel).toFixed(3).padStart(8), (vMs / perLevel).toFixed(3).padStart(9),
    String(new Set(insts.map((i) => i.prompt)).size).padStart(16), top.toFixed(2).padStart(15),
    (otherPass / perLevel).toFixed(2).padStart(13), (plusPass / perLevel).toFixed(2).padStart(10));
}
try { Math.random = rt.disabledRandom; env.generate(rngFor(meta.name, 1, 1), 1); } catch (e) { fail('generate failed with Math.random disabled: ' + e.message); }
console.log(problems === 0 ? 'OK' : `${problems} problem(s)`);
console.log('\nexample prompt (level 3):\n' + env.generate(rngFor(meta.name, 7, 3), 3).prompt);
console.log('\nreference:', env.solve(env.generate(rngFor(meta.name, 7, 3), 3)));
