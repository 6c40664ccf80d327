import type { Server } from 'node:http';

/**
 * The runtime listens before it has finished starting: the first account is provisioned
 * through its own admin API. Until `ready()` is called, the health route answers 503 with
 * status `starting`, so tooling that waits for a healthy answer finds runtime.json written.
 * Every other route is served as usual.
 */
export function holdHealthUntilReady(server: Server, healthPath: string): { ready(): void } {
  const serve = server.listeners('request');
  server.removeAllListeners('request');
  let started = false;
  server.on('request', (req, res) => {
    if (!started && new URL(req.url ?? '/', 'http://localhost').pathname === healthPath) {
      res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': '1' }).end(
        JSON.stringify({
          success: false,
          data: { status: 'starting' },
          error: { code: 'SERVICE_UNAVAILABLE', message: 'The local runtime is still starting' },
        }),
      );
      return;
    }
    for (const listener of serve) listener.call(server, req, res);
  });
  return { ready: () => (started = true) };
}
