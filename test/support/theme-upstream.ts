import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny theme provider on loopback: answers `GET /` with `body` and `status`, both
 * changeable between calls, and counts the requests it served.
 */
export interface ThemeUpstream {
  readonly url: string;
  status: number;
  body: unknown;
  requests: number;
  close(): Promise<void>;
}

export async function startThemeUpstream(body: unknown): Promise<ThemeUpstream> {
  const upstream = { status: 200, body, requests: 0 } as ThemeUpstream & { url: string; close: () => Promise<void> };
  const server: Server = createServer((_req, res) => {
    upstream.requests++;
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(upstream.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/themes`;
  upstream.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return upstream;
}

/** An upstream catalog of two themes, shaped as the provider contract says. */
export const UPSTREAM_CATALOG = {
  provider: 'loopback-themes',
  themes: [
    { id: 'upstream-web', name: 'Upstream Web', platform: 'desktop-web', weight: 1, content: '# Upstream Web' },
    { id: 'upstream-game', name: 'Upstream Game', platform: 'game', weight: 1, content: '# Upstream Game' },
    { id: 'malformed', platform: 'game' },
  ],
};
