import { readFileSync } from 'node:fs';
import { readProfileOf, sourceResolver } from './bench/cpu-profile.js';
const dir = '/tmp/gateway-profiles-fCmBx3';
const phases = JSON.parse(readFileSync(`${dir}/phases.json`, 'utf8'));
const w = phases[0].window; const pid = Number(process.argv[2] ?? 15843);
const perReq = phases[0].processes.find((p: any) => p.pid === pid).cpuUsPerRequest;
const profile = readProfileOf(dir, pid)!;
const bundle = readFileSync(`${dir}/start.bundle.mjs-profile-6563ae2b.mjs`) && `${dir}/start.bundle.mjs-profile-6563ae2b.mjs`;
const resolve = sourceResolver([{ bundle: '/work/main/local/.start.bundle.mjs-profile-6563ae2b.mjs', map: `${bundle}.map` }]);
const parent = new Map<number, number>(); const byId = new Map(profile.nodes.map((n) => [n.id, n]));
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = new Map<number, string>();
for (const n of profile.nodes) { const r = resolve(n.callFrame); label.set(n.id, `${r.source.replace('/work/main/', '').replace(/^.*node_modules\//, 'nm/')}:${r.functionName}`); }
let t = profile.startTime; const incl = new Map<string, number>(); let busy = 0;
for (let i = 0; i < profile.samples.length; i++) { t += profile.timeDeltas[i]!; if (t < w.startUs || t > w.endUs) continue;
  const id = profile.samples[i]!; const top = byId.get(id)!.callFrame.functionName; if (top === '(idle)') continue; busy++;
  const seen = new Set<string>(); let cur: number | undefined = id;
  while (cur !== undefined) { const l = label.get(cur)!; const key = process.argv[3] === 'fn' ? l : l.split(':')[0]!; if (!seen.has(key)) { seen.add(key); incl.set(key, (incl.get(key) ?? 0) + 1); } cur = parent.get(cur); } }
const rows = [...incl].filter(([k]) => k.startsWith('lambdas') || k.startsWith('local') || k.startsWith('nm/@middy') || k.includes('powertools')).sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[4] ?? 40));
for (const [k, n] of rows) console.log(String(Math.round((n / busy) * perReq)).padStart(5), 'µs', k);
