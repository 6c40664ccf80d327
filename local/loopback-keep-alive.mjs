// How long every loopback server of the local runtime keeps an idle connection open.
//
// Node's default (5 s) is shorter than the idle time a busy test machine can put between two
// calls of one client, and when the server closes a socket at the moment the client reuses it
// the client sees ECONNRESET. A server that keeps sockets longer than any client holds them idle
// (undici and Node's agent both close theirs within seconds, or at the server's hint) is never
// the side that closes a connection a request is about to use.
export const LOOPBACK_KEEP_ALIVE_MS = 65_000;

/** Sets the agreed keep-alive on a Node HTTP server; returns it. */
export function withLoopbackKeepAlive(server) {
  server.keepAliveTimeout = LOOPBACK_KEEP_ALIVE_MS;
  // A request's headers must be allowed to take longer than an idle socket may wait for them.
  server.headersTimeout = LOOPBACK_KEEP_ALIVE_MS + 1_000;
  return server;
}
