/** `npm run bench`: prints figures, and PASS/MISS against the targets for the gateway overhead; it exits 0 either way (not a test verdict). */
import { benchBundles } from './bundles.js';
import { benchGatewayOverhead } from './gateway-overhead.js';
import { benchModelsLatency } from './models-latency.js';

console.log(`Node ${process.version} on ${process.arch}, ${(await import('node:os')).cpus().length} cores`);
await benchBundles();
await benchModelsLatency();
await benchGatewayOverhead();
