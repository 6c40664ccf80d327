// Makes the embedded DynamoDB answer as slowly as the real one does from Lambda: each call is
// held for a fixed time before dynalite sees it (a few milliseconds in AWS, against tens of
// microseconds on loopback), so a request's synchronous DynamoDB calls show in its latency.
// Every call is also logged (operation and arrival time on the shared performance clock), so
// a benchmark can tell which calls happened while a request was in flight:
// `GET /__local/calls` answers the log and clears it.
import { INTERNAL_HEADER } from './dynamodb-transactions.mjs';

const MAX_LOGGED_CALLS = 100_000;

/**
 * @param {import('node:http').Server} server dynalite's server, before it listens
 * @param {number} latencyMs how long each call waits before dynalite handles it
 */
export function addLatency(server, latencyMs) {
  const [dynaliteHandler] = server.listeners('request');
  let calls = [];
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    // The transaction layer's own calls to dynalite (local/dynamodb-transactions.mjs) are part
    // of the call that made them: they neither wait nor count.
    if (req.headers[INTERNAL_HEADER]) return dynaliteHandler.call(server, req, res);
    if (req.method === 'GET' && req.url === '/__local/calls') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ calls }));
      calls = [];
      return;
    }
    if (calls.length < MAX_LOGGED_CALLS) {
      const target = String(req.headers['x-amz-target'] ?? '');
      calls.push({ operation: target.slice(target.indexOf('.') + 1), at: performance.timeOrigin + performance.now() });
    }
    setTimeout(() => dynaliteHandler.call(server, req, res), latencyMs);
  });
}
