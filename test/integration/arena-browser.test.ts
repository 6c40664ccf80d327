import { arenaStream, eventsOf } from './support/arena.js';
import { useGateway } from './support/gateway-fixture.js';
import { validateArenaStream } from '../support/arena-stream-validator.js';

/**
 * A browser page calling the arena with a publishable key (issue 9, section 2): the preflight it
 * sends first (no credentials), then the real request from the key's allowed origin, read as a
 * browser reads a stream. Another origin is refused.
 */
const ORIGIN = 'https://app.example';
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  account: 'arena-browser',
  key: { via: 'admin', body: { type: 'publishable', allowedOrigins: [ORIGIN] } },
});

const listed = (header: string | null) => (header ?? '').split(',').map((item) => item.trim().toLowerCase());

describe.each([
  ['/api/v1/battle', 'battle', { message: 'Name a prime. [sim:words=3]', models: ['gpt', 'claude'] }],
  ['/api/v1/fight', 'fight', { message: 'Name a prime. [sim:words=3]', models: ['gpt', 'claude', 'gemini'] }],
] as const)('%s', (path, mode, body) => {
  it("admits the key's origin in a preflight", async () => {
    const preflight = await fetch(local.gateway.url(path), {
      method: 'OPTIONS',
      headers: {
        Origin: ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(listed(preflight.headers.get('access-control-allow-methods'))).toContain('post');
    expect(listed(preflight.headers.get('access-control-allow-headers'))).toEqual(
      expect.arrayContaining(['authorization', 'content-type']),
    );
  });

  it("streams a whole session to the key's origin, exposing X-Session-ID to the page", async () => {
    const stream = await arenaStream(local.gateway, path, local.key, body, { headers: { Origin: ORIGIN } });
    expect(stream.status).toBe(200);
    expect(validateArenaStream(stream.events, mode)).toEqual([]);
    expect(stream.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(listed(stream.headers.get('access-control-expose-headers'))).toContain('x-session-id');
    expect(stream.headers.get('x-session-id')).toBe(eventsOf(stream, 'session_start')[0]!['sessionId']);
  });

  it('refuses another origin with 403 and no Allow-Origin', async () => {
    const refused = await arenaStream(local.gateway, path, local.key, body, {
      headers: { Origin: 'https://evil.example' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(refused.events).toEqual([]);
  });
});
