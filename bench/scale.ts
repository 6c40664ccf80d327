import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RATE_LIMIT } from '../lambdas/identity/key-schemas.js';
import {
  TENANT_CACHE_ACCOUNTS,
  TENANT_REFRESH_BEFORE_MS,
  TENANT_SESSION_SECONDS,
} from '../lambdas/store/tenant-credentials.js';
import { MAX_TOTALS_PER_TRANSACTION } from '../lambdas/usage/stream-aggregation.js';
import { AGGREGATOR_MAPPING } from '../lib/constructs/usage-pipeline.js';
import { LocalGateway } from '../local/child-runtime.js';
import { exchange, keepAliveAgent, run, type Probe } from './load.js';
import {
  AWS_LIMITS,
  modelScenario,
  profileOf,
  type KindProfile,
  type LoggedCall,
  type MeasuredRequest,
  type ScenarioResult,
  type ServiceCalls,
  type TenantSessionSettings,
} from './scale-model.js';
import { percent, table } from './stats.js';
import { printVerdicts, verdict } from './verdicts.js';

/**
 * The model past one machine: what one tenant, and a hundred, at 1,000 and 10,000 requests a
 * second would ask of DynamoDB and the other AWS services, derived from what the code does.
 *
 * Measured on the local runtime (one instance, as one Lambda execution environment): chat
 * completions go one at a time, in a block per API key of two tenants of two keys each, and after
 * each the benchmark waits until its after-response writes have landed and the database has
 * been quiet a while, so every DynamoDB call that arrived meanwhile is that request's. The embedded DynamoDB logs each call in detail
 * (local/dynamodb-latency.mjs: table, partition key, item sizes), from which capacity is
 * counted as DynamoDB charges it (bench/scale-model.ts). A preloaded counter
 * (bench/outgoing-calls.mjs) counts the runtime's calls to Secrets Manager and STS. Which
 * tenants and keys touch a partition key tells whether it scales with one key's traffic,
 * one tenant's, or everyone's.
 *
 * Streams are measured short (the simulator answers at once) and last STREAM_S in the model:
 * their calls are taken not to grow with their length; only Lambda concurrency does.
 *
 * What one instance cannot show: calls an instance makes once per lease block or cache period
 * are counted at this instance's request rate, and many Lambda instances each serving fewer
 * requests make them more often per request; and a partition key's share of requests is taken
 * over the whole run, so a key that changed with time (a per-second bucket) would be undercounted.
 */

/** The deployed aggregator mapping's batching, and what a batch writes (bench/scale-model.ts). */
const AGGREGATOR_SETTINGS = {
  batchSize: AGGREGATOR_MAPPING.batchSize,
  batchingWindowS: AGGREGATOR_MAPPING.maxBatchingWindow.toSeconds(),
  payloadBytes: 6 * 1_048_576,
  // A ledger insert's NEW_IMAGE of about 25 attributes in DynamoDB JSON, with the record's keys.
  recordBytes: 1_200,
  totalsPerTransaction: MAX_TOTALS_PER_TRANSACTION,
  // The bench's keys each send one model through one route.
  pairsPerKey: 1,
};
const LATENCY_MS = 1;
const TENANTS_MEASURED = 2;
const KEYS_PER_TENANT_MEASURED = 2;
const WARMUP_PER_KEY = 10;
const REQUESTS_PER_KIND = 300;
/** As bench/deployment-shaped.ts: the write-behind window, the day totals after it, with room. */
const PAUSE_MS = 100 + 4 * LATENCY_MS;
/**
 * After its pause a request's calls are collected until none has come for QUIET_MS (more than
 * two write-behind windows), so a write delayed on a busy machine is not given to the next
 * request; MAX_WAIT_MS bounds the wait should something call DynamoDB all the time.
 */
const QUIET_MS = 60;
const POLL_MS = 20;
const MAX_WAIT_MS = 2_000;
/**
 * Each API key's requests go in a block of their own, ended by a longer quiet: a write late even
 * for QUIET_MS then lands on a request of the same key, and which keys and tenants touched a
 * partition (its scope) stays exact on a loaded machine.
 */
const BLOCK_QUIET_MS = 500;
const BLOCK_MAX_WAIT_MS = 5_000;
const STREAM_S = 20;
/** A non-streamed completion's time upstream (assumed: a short answer); the gateway's own part is milliseconds. */
const NON_STREAMED_S = 1;
/** lambdas/store/secret-values.ts and lambdas/chat/provider-credentials.ts keep secrets 5 minutes. */
const SECRET_CACHE_S = 300;
/**
 * In AWS an instance reads the platform keys secret (lambdas/providers/provider-config.ts);
 * the local runtime hands the simulators' keys over in the environment instead, so that read
 * cannot be measured here and is added to each fresh instance's.
 */
const PLATFORM_SECRET_READS = 1;
const DYNAMODB_TARGET = /^DynamoDB_20120810\./;
const SECRETS_TARGET = 'secretsmanager.GetSecretValue';
const isSts = (name: string) => /^AWSSecurityTokenService|host sts\./i.test(name);

const RATES = [1_000, 10_000];
const TENANT_COUNTS = [1, 100];
/** The target: one tenant at this rate fits every per-partition limit. */
const TARGET_RATE = 10_000;

type Kind = 'non-streamed' | 'stream';
const KINDS: readonly Kind[] = ['non-streamed', 'stream'];
const DURATION_S: Record<Kind, number> = { 'non-streamed': NON_STREAMED_S, stream: STREAM_S };
const kindLabel = (kind: Kind) => (kind === 'stream' ? `${STREAM_S} s stream` : 'non-streamed');

interface Sender {
  readonly tenant: number;
  readonly key: number;
  readonly apiKey: string;
}

interface Measurement {
  readonly requests: MeasuredRequest[];
  /** Outgoing calls by name over the whole measurement (bench/outgoing-calls.mjs). */
  readonly outgoing: Record<string, number>;
  /** Requests per second this one instance served while measured. */
  readonly instanceRate: number;
}

export async function benchScale(): Promise<void> {
  const countsDir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  try {
    await measureAndReport(countsDir);
  } finally {
    rmSync(countsDir, { recursive: true, force: true });
  }
}

async function measureAndReport(countsDir: string): Promise<void> {
  const preload = pathToFileURL(fileURLToPath(new URL('./outgoing-calls.mjs', import.meta.url))).href;
  const gateway = await LocalGateway.start({
    POWERTOOLS_LOG_LEVEL: 'INFO',
    GATEWAY_DYNAMODB_LATENCY_MS: String(LATENCY_MS),
    NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import=${preload}`.trim(),
    BENCH_OUTGOING_CALLS_DIR: countsDir,
  });
  try {
    const senders = await createSenders(gateway);
    // A fresh instance: nothing cached, as a Lambda cold start.
    await gateway.restart();
    const response = await fetch(`${gateway.aws.dynamodb}/__local/calls/detailed`, { method: 'POST' });
    if (response.status !== 204) throw new Error(`the embedded DynamoDB has no detailed call log (${response.status})`);
    const runId = randomBytes(4).toString('hex');
    const probes = (kind: Kind) => senders.map((sender) => chatProbe(gateway, sender, kind, runId));
    const counts = () => outgoingCounts(countsDir, gateway.pid!);

    const cold = await measure(gateway, counts, [{ sender: senders[0]!, probe: probes('non-streamed')[0]!, index: 0 }]);
    for (const kind of KINDS) for (const probe of probes(kind)) await run(probe, WARMUP_PER_KEY, 1, 1);
    await sleep(PAUSE_MS);

    const measured = new Map<Kind, Measurement>();
    for (const kind of KINDS) {
      const kindProbes = probes(kind);
      const perKey = REQUESTS_PER_KIND / senders.length;
      const sends = senders.flatMap((sender, s) =>
        Array.from({ length: perKey }, (_, i) => ({ sender, probe: kindProbes[s]!, index: 1 + WARMUP_PER_KEY + i })),
      );
      measured.set(kind, await measure(gateway, counts, sends));
    }
    report(gateway, cold, measured);
  } finally {
    gateway.output = '';
    await gateway.dispose();
  }
}

/** Two tenants (accounts), each with two secret keys at the highest rate limit. */
async function createSenders(gateway: LocalGateway): Promise<Sender[]> {
  const admin = { Authorization: `Bearer ${gateway.info.adminToken}`, 'Content-Type': 'application/json' };
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(gateway.url(path), { method: 'POST', headers: admin, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: T }).data;
  };
  const senders: Sender[] = [];
  for (let tenant = 0; tenant < TENANTS_MEASURED; tenant++) {
    const { accountId } = await post<{ accountId: string }>('/api/admin/v1/accounts', {
      email: `scale-bench-${tenant + 1}@example.com`,
      name: `Scale bench ${tenant + 1}`,
    });
    for (let key = 0; key < KEYS_PER_TENANT_MEASURED; key++) {
      const created = await post<{ key: string }>('/api/admin/v1/keys', {
        accountId,
        type: 'secret',
        name: `scale bench ${tenant + 1}.${key + 1}`,
        rateLimit: RATE_LIMIT.maximum,
      });
      senders.push({ tenant, key: tenant * KEYS_PER_TENANT_MEASURED + key, apiKey: created.key });
    }
  }
  return senders;
}

/** A chat completion with a message unique per index: the response cache always misses. */
function chatProbe(gateway: LocalGateway, sender: Sender, kind: Kind, runId: string): Probe {
  const stream = kind === 'stream';
  return {
    name: `${kind} (key ${sender.key + 1})`,
    url: new URL(gateway.url('/api/v1/chat/completions')),
    headers: () => ({
      Authorization: `Bearer ${sender.apiKey}`,
      'Content-Type': 'application/json',
      Accept: stream ? 'text/event-stream' : 'application/json',
    }),
    body: (i) =>
      JSON.stringify({
        model: 'gpt',
        messages: [{ role: 'user', content: `scale ${runId} ${kind} key ${sender.key} ${String(i).padStart(6, '0')}` }],
        stream,
      }),
  };
}

/**
 * Sends one request at a time; after each, collects the calls that arrive until the pause is
 * over and the log has been quiet for QUIET_MS (BLOCK_QUIET_MS after a key's last request):
 * those calls are that request's.
 */
async function measure(
  gateway: LocalGateway,
  counts: () => Record<string, number>,
  sends: readonly { sender: Sender; probe: Probe; index: number }[],
): Promise<Measurement> {
  await dynamoCalls(gateway); // earlier calls are not this measurement's
  const before = counts();
  const agent = keepAliveAgent(1);
  const requests: MeasuredRequest[] = [];
  const start = performance.now();
  try {
    for (const [i, { sender, probe, index }] of sends.entries()) {
      const sentAt = performance.now();
      const outcome = await exchange(agent, probe, index);
      if (outcome.status !== 200) throw new Error(`${probe.name}: status ${outcome.status} ${outcome.errorBody ?? ''}`);
      const lastOfBlock = sends[i + 1]?.sender !== sender;
      const calls = await collectUntilQuiet(
        gateway,
        sentAt,
        lastOfBlock ? BLOCK_QUIET_MS : QUIET_MS,
        lastOfBlock ? BLOCK_MAX_WAIT_MS : MAX_WAIT_MS,
      );
      requests.push({ tenant: sender.tenant, key: sender.key, calls });
    }
  } finally {
    agent.destroy();
  }
  const elapsedMs = performance.now() - start;
  const after = counts();
  const outgoing = Object.fromEntries(Object.entries(after).map(([name, n]) => [name, n - (before[name] ?? 0)]));
  return { requests, outgoing, instanceRate: (sends.length * 1000) / elapsedMs };
}

/** The calls logged from now until PAUSE_MS after `sentAt` and `quietMs` without one (at most `maxMs`). */
async function collectUntilQuiet(
  gateway: LocalGateway,
  sentAt: number,
  quietMs: number,
  maxMs: number,
): Promise<LoggedCall[]> {
  const calls: LoggedCall[] = [];
  let lastCallAt = performance.now();
  for (;;) {
    await sleep(POLL_MS);
    const arrived = await dynamoCalls(gateway);
    const now = performance.now();
    if (arrived.length > 0) {
      calls.push(...arrived);
      lastCallAt = now;
    }
    if ((now - sentAt >= PAUSE_MS && now - lastCallAt >= quietMs) || now - sentAt >= maxMs) return calls;
  }
}

async function dynamoCalls(gateway: LocalGateway): Promise<LoggedCall[]> {
  const response = await fetch(`${gateway.aws.dynamodb}/__local/calls`);
  return ((await response.json()) as { calls: LoggedCall[] }).calls;
}

function outgoingCounts(dir: string, pid: number): Record<string, number> {
  const file = join(dir, `${pid}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>) : {};
}

function report(gateway: LocalGateway, cold: Measurement, measured: ReadonlyMap<Kind, Measurement>): void {
  const logical = new Map(Object.entries(gateway.aws.tables).map(([name, physical]) => [physical, name]));
  const tableName = (physical: string) => logical.get(physical) ?? physical;
  const profiles = new Map<Kind, KindProfile>(
    KINDS.map((kind) => [kind, profileOf(measured.get(kind)!.requests, tableName)]),
  );
  const coldProfile = profileOf(cold.requests, tableName);
  const sum = (counts: Record<string, number>, match: (name: string) => boolean) =>
    Object.entries(counts).reduce((total, [name, n]) => total + (match(name) ? n : 0), 0);
  const services = (kind: Kind): ServiceCalls => {
    const { outgoing, requests } = measured.get(kind)!;
    return {
      secretsPerRequest: sum(outgoing, (name) => name === SECRETS_TARGET) / requests.length,
      secretsPerColdStart: sum(cold.outgoing, (name) => name === SECRETS_TARGET) + PLATFORM_SECRET_READS,
      stsPerRequest: sum(outgoing, isSts) / requests.length,
      stsPerColdStart: sum(cold.outgoing, isSts),
    };
  };

  console.log(
    `\nThe model past one machine: DynamoDB calls measured on the local runtime (one instance; each call held ` +
      `${LATENCY_MS} ms), ${REQUESTS_PER_KIND} chat completions of each kind one at a time, each followed by a ` +
      `pause of at least ${PAUSE_MS} ms, until no call has come for ${QUIET_MS} ms (its after-response writes), ` +
      `in blocks of ${REQUESTS_PER_KIND / (TENANTS_MEASURED * KEYS_PER_TENANT_MEASURED)} per key over ` +
      `${TENANTS_MEASURED} tenants × ${KEYS_PER_TENANT_MEASURED} keys (rate limit ` +
      `${RATE_LIMIT.maximum}/min each), after ${WARMUP_PER_KEY} warm-up requests per key and kind; non-streamed ` +
      `requests are cache MISSes. Streams last milliseconds here and ${STREAM_S} s in the model (their calls taken ` +
      `as not growing with length); a non-streamed answer is taken to hold its instance ${NON_STREAMED_S} s.\n`,
  );
  const fixed = (n: number) => n.toFixed(n === 0 ? 0 : 2);
  const tableRows = (label: string, profile: KindProfile) =>
    profile.tables.map((t) => [
      label,
      t.table,
      fixed(t.callsPerRequest),
      [...t.operations].map(([op, n]) => `${op} ${fixed(n)}`).join(', '),
      fixed(t.wcuPerRequest),
      fixed(t.rcuPerRequest),
    ]);
  console.log(
    table([
      ['request', 'table', 'calls/request', 'operations/request', 'WCU/request', 'RCU/request'],
      ...KINDS.flatMap((kind) => tableRows(kindLabel(kind), profiles.get(kind)!)),
      ...tableRows('first on a fresh instance', coldProfile),
    ]),
  );
  for (const kind of KINDS) {
    const { failedCalls, throttledCalls } = profiles.get(kind)!;
    if (failedCalls + throttledCalls > 0)
      console.log(
        `${kindLabel(kind)}: ${failedCalls} calls answered with an error (charged) and ${throttledCalls} throttled (not charged)`,
      );
  }
  const plainServices = services('non-streamed');
  const streamServices = services('stream');
  const stsCalls = [cold, ...measured.values()].reduce((total, m) => total + sum(m.outgoing, isSts), 0);
  console.log(
    `\nSecrets Manager GetSecretValue: ${fixed(plainServices.secretsPerRequest)} per non-streamed request, ` +
      `${fixed(streamServices.secretsPerRequest)} per stream, ${plainServices.secretsPerColdStart - PLATFORM_SECRET_READS} ` +
      `on a fresh instance, +${PLATFORM_SECRET_READS} in AWS (the platform keys secret, which the local runtime ` +
      `replaces with environment variables), then again every ${SECRET_CACHE_S} s; STS: ${stsCalls} calls` +
      `${stsCalls === 0 ? ' (not used)' : ''}.`,
  );
  for (const kind of KINDS) {
    const { outgoing, requests, instanceRate } = measured.get(kind)!;
    const logged = requests.reduce((total, r) => total + r.calls.length, 0);
    console.log(
      `${kindLabel(kind)}: the runtime sent ${sum(outgoing, (name) => DYNAMODB_TARGET.test(name))} DynamoDB calls, ` +
        `${logged} were logged and given to a request; this instance served ${instanceRate.toFixed(1)} req/s.`,
    );
  }
  console.log(
    'Calls an instance makes once per block or per cache period (rate-limit leases, key and cache refreshes) are ' +
      "counted at this one instance's rate: spread over many Lambda instances, each serving fewer requests, they " +
      'come more often per request.',
  );

  console.log(
    '\nPartition keys, the hottest of each pattern: capacity per request of its scope (key: one API ' +
      "key's requests; tenant: one tenant's; shared: everyone's; request: one request's, never hot)\n",
  );
  console.log(
    table([
      ['request', 'partition key', 'scope', 'WCU/request', 'RCU/request'],
      ...KINDS.flatMap((kind) =>
        hottestPerPattern(profiles.get(kind)!).map((p) => [
          kindLabel(kind),
          `${p.table}: ${p.pattern}`,
          p.scope,
          fixed(p.wcuPerRequest),
          fixed(p.rcuPerRequest),
        ]),
      ),
    ]),
  );

  const tenantSessions: TenantSessionSettings = {
    sessionS: TENANT_SESSION_SECONDS,
    refreshBeforeS: TENANT_REFRESH_BEFORE_MS / 1000,
    cacheAccounts: TENANT_CACHE_ACCOUNTS,
    share: 1,
  };
  const constants = {
    maxKeyRequestsPerMinute: RATE_LIMIT.maximum,
    secretCacheS: SECRET_CACHE_S,
    aggregator: AGGREGATOR_SETTINGS,
    tenantSessions,
  };
  console.log(
    `\nTenant sessions (STS AssumeRole, ${AWS_LIMITS.stsRequestsPerS}/s per account and Region for all STS calls): ` +
      `modelled at the worst case, every request reading under one (BYOK on every request); each instance keeps a ` +
      `${TENANT_SESSION_SECONDS / 60}-minute session per account it serves (at most ${TENANT_CACHE_ACCOUNTS}), ` +
      `renewed ${TENANT_REFRESH_BEFORE_MS / 60_000} minutes before it expires; a cold instance opens its first at once.`,
  );
  console.log(
    `\nThe usage aggregator, modelled per stream batch (its calls here, ${[...profiles.values()].reduce((n, p) => n + p.aggregatorCalls, 0)} ` +
      `in all, are left out of the per-request figures): one stream shard per ${AWS_LIMITS.partitionWcuPerS} ledger writes a second, ` +
      `batches of up to ${AGGREGATOR_SETTINGS.batchSize.toLocaleString('en-US')} records (or ${AGGREGATOR_SETTINGS.payloadBytes / 1_048_576} MB ` +
      `of ${AGGREGATOR_SETTINGS.recordBytes}-byte records) gathered for up to ${AGGREGATOR_SETTINGS.batchingWindowS} s, ` +
      `a day and an hour total per tenant, model, route and key in each batch (${AGGREGATOR_SETTINGS.pairsPerKey} model and route per key).`,
  );
  const results: ScenarioResult[] = [];
  for (const kind of KINDS)
    for (const tenants of TENANT_COUNTS)
      for (const rate of RATES)
        results.push(
          modelScenario(
            profiles.get(kind)!,
            { kind: kindLabel(kind), tenants, rate, durationS: DURATION_S[kind] },
            services(kind),
            constants,
          ),
        );
  console.log(
    `\nAt scale: tenants share the rate evenly, each over enough keys for it at ${RATE_LIMIT.maximum}/min a key; ` +
      `limits: partition ${AWS_LIMITS.partitionWcuPerS} WCU/s and ${AWS_LIMITS.partitionRcuPerS} RCU/s, ` +
      `on-demand table start ${AWS_LIMITS.tableInitialWruPerS} WRU/s and ${AWS_LIMITS.tableInitialRruPerS} RRU/s ` +
      `(then doubling on the previous peak), API Gateway ${AWS_LIMITS.apiGatewayRequestsPerS} req/s ` +
      `(burst ${AWS_LIMITS.apiGatewayBurst}), Lambda concurrency ${AWS_LIMITS.lambdaConcurrency} (scaling ` +
      `${AWS_LIMITS.lambdaScalingPer10s} per 10 s), GetSecretValue ${AWS_LIMITS.secretsManagerGetSecretValuePerS}/s\n`,
  );
  const whole = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(
    table([
      [
        'traffic',
        'keys/tenant',
        'hottest partition: WCU/s, RCU/s (use of limit)',
        'busiest table: WRU/s, RRU/s',
        'Lambda concurrency (ramp)',
        'secrets/s',
        'STS/s',
        'limit hit first (use of it)',
      ],
      ...results.map((r) => {
        const hot = r.partitions[0];
        const busy = r.tables[0];
        const first = r.limits[0]!;
        return [
          `${r.scenario.kind}, ${r.scenario.tenants} tenant${r.scenario.tenants > 1 ? 's' : ''}, ${whole(r.scenario.rate)} req/s`,
          String(r.keysPerTenant),
          hot
            ? `${hot.table}: ${hot.pattern} ${whole(hot.wcuPerS)}, ${whole(hot.rcuPerS)} (${percent(hot.share)})`
            : 'none',
          busy ? `${busy.table} ${whole(busy.wruPerS)}, ${whole(busy.rruPerS)}` : 'none',
          `${whole(r.concurrency)} (${r.rampS} s)`,
          whole(r.secretsPerS),
          whole(r.stsPerS),
          first.share >= 1
            ? `${first.name} (${percent(first.share)}; reached at ~${whole(r.scenario.rate / first.share)} req/s)`
            : `none (most used: ${first.name}, ${percent(first.share)})`,
        ];
      }),
    ]),
  );

  const target = results.filter((r) => r.scenario.tenants === 1 && r.scenario.rate === TARGET_RATE);
  const worst = target
    .flatMap((r) => r.partitions.slice(0, 1).map((p) => ({ kind: r.scenario.kind, p })))
    .sort((a, b) => b.p.share - a.p.share)[0];
  printVerdicts([
    verdict(
      `one tenant at ${whole(TARGET_RATE)} req/s fits every per-partition limit: hottest ` +
        (worst
          ? `${worst.p.table}: ${worst.p.pattern} (${worst.kind}; ${whole(worst.p.wcuPerS)} WCU/s, ${whole(worst.p.rcuPerS)} RCU/s)`
          : 'none'),
      worst?.p.share ?? 0,
      1,
      percent,
    ),
  ]);
}

/** The hottest concrete key of each table, pattern and scope. */
function hottestPerPattern(profile: KindProfile): KindProfile['partitions'] {
  const best = new Map<string, KindProfile['partitions'][number]>();
  for (const p of profile.partitions) {
    const id = `${p.table} ${p.pattern} ${p.scope}`;
    const known = best.get(id);
    if (!known || p.wcuPerRequest + p.rcuPerRequest > known.wcuPerRequest + known.rcuPerRequest) best.set(id, p);
  }
  return [...best.values()].sort((a, b) => `${a.table} ${a.pattern}`.localeCompare(`${b.table} ${b.pattern}`));
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
