/**
 * `npm run bench`: prints figures, and PASS/MISS against the targets; it exits 0 either way
 * (not a test verdict). `npm run bench -- latency pinned` runs only the named sections:
 * bundles, models, overhead, arena (a paced fight's orchestration overhead), schema (the
 * schema_validation budget's CPU), memory (a 20 s stream's CPU time and memory, for sizing the
 * streaming routes), latency (DynamoDB at AWS speed, and a tenant session's cold and warm cost),
 * pinned (one vCPU for the servers), console (the console's script size against its budget),
 * scale (the model past one machine: DynamoDB capacity per partition key and AWS limits at scale).
 * `npm run bench -- pinned profile` also profiles the pinned run's servers (`--cpu-prof`) and
 * prints where their CPU goes.
 */
import { benchArena } from './arena-overhead.js';
import { benchBundles } from './bundles.js';
import { benchConsoleSize } from './console-size.js';
import { benchDeploymentShaped } from './deployment-shaped.js';
import { benchGatewayOverhead } from './gateway-overhead.js';
import { benchModelsLatency } from './models-latency.js';
import { benchSchemaValidation } from './schema-validation-cost.js';
import { benchStreamFootprint } from './stream-footprint.js';

const OPTIONS = ['profile'];
const args = process.argv.slice(2);
const chosen = args.filter((arg) => !OPTIONS.includes(arg));
const wanted = (section: string) => chosen.length === 0 || chosen.includes(section);

console.log(`Node ${process.version} on ${process.arch}, ${(await import('node:os')).cpus().length} cores`);
if (wanted('bundles')) await benchBundles();
if (wanted('console')) await benchConsoleSize();
if (wanted('models')) await benchModelsLatency();
if (wanted('overhead')) await benchGatewayOverhead();
if (wanted('arena')) await benchArena();
if (wanted('schema')) await benchSchemaValidation();
if (wanted('memory')) await benchStreamFootprint();
if (wanted('scale')) await (await import('./scale.js')).benchScale();
if (wanted('latency')) await (await import('./tenant-session-cost.js')).benchTenantSessions();
await benchDeploymentShaped(['latency', 'pinned'].filter(wanted), { profile: args.includes('profile') });
