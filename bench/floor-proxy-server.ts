/**
 * The floor: a bare HTTP pass-through proxy on node:http and nothing else (no auth, no
 * parsing, no logging). It forwards method, path, headers and body to one upstream origin
 * over a keep-alive agent and pipes the answer back as it arrives, so streamed bytes are
 * not held. Whatever a gateway adds beyond this is the gateway's own cost.
 *
 * Run as its own process by bench/floor-proxy.ts (`node --import tsx bench/floor-proxy-server.ts
 * <upstream origin>`): it prints `{"port":N}` on stdout once listening and exits when its stdin
 * closes, so it never outlives the benchmark.
 */
import { Agent, createServer, request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

const upstream = new URL(process.argv[2] ?? '');
if (upstream.protocol !== 'http:')
  throw new Error(`floor proxy: upstream must be an http:// origin, got ${process.argv[2]}`);

/** Same pool shape as the gateway's upstream agent (lambdas/providers/http-transport.ts). */
const agent = new Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 10_000 });

/** Hop-by-hop headers (RFC 9110 §7.6.1) are the proxy's own business on each connection. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

const server = createServer((req, res) => {
  const headers = endToEnd(req.headers);
  headers['host'] = upstream.host;
  const forward = request(
    {
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers,
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
    },
  );
  forward.on('error', () => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  req.pipe(forward);
});
server.keepAliveTimeout = 10_000;

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

const stop = () => {
  agent.destroy();
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.stdin.on('end', stop).resume();
process.on('SIGTERM', stop);
