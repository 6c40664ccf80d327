/** `npm run bench`: prints figures; it has no pass/fail verdict (targets are read by people). */
import { benchBundles } from './bundles.js';
import { benchModelsLatency } from './models-latency.js';

console.log(`Node ${process.version} on ${process.arch}, ${(await import('node:os')).cpus().length} cores`);
await benchBundles();
await benchModelsLatency();
