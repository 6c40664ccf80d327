// dynalite in its own process, so its CPU is not counted against the gateway process.
// Plain .mjs so it starts with the bare node executable, whatever loader the parent uses.
// Protocol with local/dynamodb.ts: argv[2] is JSON { path, latencyMs?, throughput?, readCacheValues? }
// (throughput: the options of local/dynamodb-throughput.mjs, or 'off'); once listening it sends
// { port, streamsPort } over IPC (or { error }), streamsPort serving the DynamoDB Streams API
// (local/dynamodb-streams.mjs); it shuts down cleanly on SIGTERM/SIGINT, and when the parent
// goes away (the IPC channel or stdin closes), so an orphan never holds the LevelDB lock.
import dynalite from 'dynalite';
import { addTransactions } from './dynamodb-transactions.mjs';
import { createRequire } from 'node:module';
import { addLatency } from './dynamodb-latency.mjs';
import { addThroughput } from './dynamodb-throughput.mjs';
import { addTenantAccess } from './dynamodb-tenant-access.mjs';
import { addPartiQLInserts } from './dynamodb-partiql.mjs';
import { addStreams, captureItemWrites, createStreamsApiServer, openStreams } from './dynamodb-streams.mjs';
import { withLoopbackKeepAlive } from './loopback-keep-alive.mjs';
import { installLevelFront } from './dynamodb-level-front.mjs';
import { installParsedExpressions } from './dynamodb-parsed-expressions.mjs';

const { path, latencyMs = 0, throughput = {}, readCacheValues } = JSON.parse(process.argv[2] ?? '{}');

function fail(message) {
  process.send?.({ error: message });
  process.exit(1);
}

// dynalite opens LevelDB lazily and crashes on the first request if that fails (typically: the
// folder is locked by another running instance), so open it once up front to report why.
try {
  const { Level } = createRequire(createRequire(import.meta.url).resolve('dynalite'))('level');
  const probe = new Level(path);
  await probe.open();
  await probe.close();
} catch (err) {
  const cause = err?.cause?.message ?? err?.message ?? String(err);
  fail(`cannot open ${path} (is another local runtime using it?): ${cause}`);
}

// dynalite lacks DynamoDB Streams (local/dynamodb-streams.mjs): its item store reports writes.
let streams;
try {
  streams = openStreams({ path: `${path}/streams` });
} catch (err) {
  fail(`cannot read the streams in ${path}/streams: ${err?.message ?? err}`);
}
captureItemWrites(streams);
// Under the streams layer (it wraps LevelDB itself): that layer's read of the old image is cached too.
const readsCached = installLevelFront(readCacheValues);
installParsedExpressions();
const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
try {
  await readsCached;
} catch (err) {
  fail(`cannot read the keys in ${path}: ${err?.message ?? err}`);
}
// dynalite lacks TransactWriteItems; the usage ledger needs it (local/dynamodb-transactions.mjs).
addTransactions(server);
// Right around the transactions: it sees a transaction answer only if the transaction ran.
addStreams(server, streams);
const streamsApi = withLoopbackKeepAlive(createStreamsApiServer(streams));
withLoopbackKeepAlive(server);
setInterval(() => streams.trimExpired(), 60_000).unref();
// In front of the transactions: a throttled transaction is cancelled whole, before it holds a table.
if (throughput !== 'off') addThroughput(server, throughput);
// PartiQL INSERTs become conditional puts here, handed to the layers behind in-process: each is
// throttled, metered and streamed as the put it is, and the tenant-access policy (which names no
// PartiQL action) refuses the whole call in front.
addPartiQLInserts(server);
// The tenant-access role's policy (local/dynamodb-tenant-access.mjs), from the environment (it
// holds the runtime's secret key, which a command line would show): a refused call is neither
// throttled nor charged, and waits as any call does.
if (process.env.GATEWAY_TENANT_SESSIONS) addTenantAccess(server, JSON.parse(process.env.GATEWAY_TENANT_SESSIONS));
// Outermost: a call waits once, whatever the transaction layer does inside it.
if (latencyMs > 0) addLatency(server, latencyMs);

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  // Force the exit if LevelDB cannot close in time; the lock is released with the process.
  setTimeout(() => process.exit(1), 10_000).unref();
  streamsApi.close();
  streamsApi.closeAllConnections();
  server.close((err) => {
    streams.close();
    process.exit(err ? 1 : 0);
  });
  server.closeAllConnections();
}

server.on('error', (err) => fail(String(err?.message ?? err)));
streamsApi.on('error', (err) => fail(String(err?.message ?? err)));
server.listen(0, '127.0.0.1', () =>
  streamsApi.listen(0, '127.0.0.1', () =>
    process.send?.({ port: server.address().port, streamsPort: streamsApi.address().port }),
  ),
);

process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
