import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
  const sockets = new Set<Socket>();
  const open = new Set<ServerResponse>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // Ahead of the gateway's own listener, which may answer at once (a CORS preflight).
  server.prependListener('request', (_req, res) => {
    if (stopping) res.shouldKeepAlive = false;
    open.add(res);
    res.once('close', () => {
      open.delete(res);
      if (stopping) setImmediate(closeIdle);
    });
  });
  /**
   * Ends every connection that carries no request now: kept-alive ones between requests, and
   * ones a client opened but never used (Node's closeIdleConnections leaves those to their
   * timeouts, which would hold the stop for as long).
   */
  const closeIdle = () => {
    const busy = new Set([...open].map((res) => res.socket));
    for (const socket of sockets) if (!busy.has(socket)) socket.destroy();
  };
  return async () => {
    stopping = true;
    for (const res of open) if (!res.headersSent) res.shouldKeepAlive = false;
    const closed = new Promise<void>((done) => server.close(() => done()));
    closeIdle();
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    await closed;
    clearTimeout(cut);
    await server.settled();
  };
}
