import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface StartupGate {
  /** The handlers' environment is written: requests are served from now on. */
  configured(): void;
  /** The runtime has finished starting: health answers as usual. */
  ready(): void;
}

/**
 * The runtime listens before it has finished starting: the handlers' environment names the
 * runtime's own origin, so the port must be known first, and the first account is provisioned
 * through its own admin API. Until `configured()`, a request waits (the handlers read their
 * configuration once, at their first call, so none may run on half of it); until `ready()`, the
 * health route answers 503 with status `starting`, so tooling that waits for a healthy answer
 * finds runtime.json written.
 */
export function holdUntilStarted(server: Server, healthPath: string): StartupGate {
  const serve = server.listeners('request');
  server.removeAllListeners('request');
  let configure = () => {};
  const configured = new Promise<void>((resolve) => (configure = resolve));
  let isConfigured = false;
  let started = false;
  const dispatch = (req: IncomingMessage, res: ServerResponse) => {
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
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (isConfigured) dispatch(req, res);
    else void configured.then(() => dispatch(req, res));
  });
  return {
    configured: () => {
      isConfigured = true;
      configure();
    },
    ready: () => (started = true),
  };
}
