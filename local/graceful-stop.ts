import type { GatewayServer } from './gateway-server.js';

/**
 * How long a stop waits for requests still in flight (long streamed answers) before it cuts
 * their connections; their handlers then finish, and their after-response writes still land.
 */
const DRAIN_GRACE_MS = 30_000;

/**
 * The gateway's part of a stop: accept nothing new, let the requests in flight finish (a
 * keep-alive connection closes after its current response rather than taking another), then
 * wait for every handler's work after its response (usage, cached answers). Only then may the
 * stand-ins and the database stop.
 */
export function drainOnStop(server: GatewayServer, graceMs = DRAIN_GRACE_MS): () => Promise<void> {
  let stopping = false;
  // Ahead of the gateway's own listener, which may answer at once (a CORS preflight).
  server.prependListener('request', (_req, res) => {
    if (stopping) res.shouldKeepAlive = false;
  });
  return async () => {
    stopping = true;
    const closed = new Promise<void>((done) => server.close(() => done()));
    server.closeIdleConnections();
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    await closed;
    clearTimeout(cut);
    await server.settled();
  };
}
