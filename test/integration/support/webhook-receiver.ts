import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the receiver got. */
export interface Delivery {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface WebhookReceiver {
  /** Every delivery, in order of arrival. */
  readonly deliveries: Delivery[];
  /** Failures (500s) still to answer, by path, before a 200. */
  readonly failuresLeft: Map<string, number>;
  /** `http://127.0.0.1:<port>/hooks/<name>`. */
  hook(name: string): string;
  /** The deliveries to `hook(name)`. */
  deliveriesTo(name: string): Delivery[];
}

/**
 * A webhook receiver on loopback for one test file. Loopback is refused by the public-URL
 * policy, so its origin is put in `env` as GATEWAY_LOCAL_WEBHOOK_RECEIVERS, the local runtime's
 * only exception (the stack never sets it). Call it before `useGateway({ env })`: its beforeAll
 * then runs first, and the runtime starts with the origin set.
 */
export function useWebhookReceiver(env: Record<string, string>): WebhookReceiver {
  const deliveries: Delivery[] = [];
  const failuresLeft = new Map<string, number>();
  let server: Server;
  let origin = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const path = req.url ?? '';
        deliveries.push({ path, headers: req.headers, body });
        const left = failuresLeft.get(path) ?? 0;
        failuresLeft.set(path, left - 1);
        res.writeHead(left > 0 ? 500 : 200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    env['GATEWAY_LOCAL_WEBHOOK_RECEIVERS'] = origin;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  return {
    deliveries,
    failuresLeft,
    hook: (name) => `http://${origin}/hooks/${name}`,
    deliveriesTo: (name) => deliveries.filter((delivery) => delivery.path === `/hooks/${name}`),
  };
}
