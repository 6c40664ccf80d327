import type { RouteSpec } from '../../../lib/routes.js';
import { routes as manifest } from '../../../lib/routes.js';
import { RouteTable, type RouteMatch } from '../../../local/route-table.js';

function spec(id: string, method: RouteSpec['method'], path: string): RouteSpec {
  return {
    id,
    method,
    path,
    entry: `test/fixtures/${id}.ts`,
    auth: [],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 128,
    errorStyle: 'envelope',
    grants: [],
  };
}

const table = new RouteTable([
  spec('keys-list', 'GET', '/api/v1/keys'),
  spec('keys-create', 'POST', '/api/v1/keys'),
  spec('keys-update', 'PATCH', '/api/v1/keys/{id}'),
  spec('keys-delete', 'DELETE', '/api/v1/keys/{id}'),
  spec('pair', 'GET', '/things/{thing}/parts/{part}'),
  spec('dotted', 'GET', '/files/v1.0/list'),
  spec('greedy', 'GET', '/models/{id+}'),
]);

function matched(method: string, path: string): RouteMatch {
  const match = table.match(method, path);
  if (match === undefined || match === 'methodMismatch') throw new Error(`${method} ${path} did not match: ${match}`);
  return match;
}

describe('RouteTable', () => {
  test('routesAt lists every route of the resource a path names, whatever its method', () => {
    expect(table.routesAt('/api/v1/keys/abc').map((route) => route.id)).toEqual(['keys-update', 'keys-delete']);
    expect(table.routesAt('/api/v1/keys').map((route) => route.id)).toEqual(['keys-list', 'keys-create']);
    expect(table.routesAt('/api/v1/nothing')).toEqual([]);
  });

  test('literal templates match by method', () => {
    expect(matched('GET', '/api/v1/keys').route.id).toBe('keys-list');
    expect(matched('POST', '/api/v1/keys').route.id).toBe('keys-create');
    expect(matched('GET', '/api/v1/keys').pathParams).toEqual({});
  });

  test('parameter templates name their segments', () => {
    expect(matched('PATCH', '/api/v1/keys/abc123')).toMatchObject({
      route: { id: 'keys-update' },
      pathParams: { id: 'abc123' },
    });
    expect(matched('DELETE', '/api/v1/keys/abc123').route.id).toBe('keys-delete');
    expect(matched('GET', '/things/t1/parts/p2').pathParams).toEqual({ thing: 't1', part: 'p2' });
  });

  test('a trailing slash matches; a doubled one does not', () => {
    expect(matched('GET', '/api/v1/keys/').route.id).toBe('keys-list');
    expect(matched('PATCH', '/api/v1/keys/abc/').pathParams).toEqual({ id: 'abc' });
    expect(table.match('GET', '/api/v1/keys//')).toBeUndefined();
  });

  test('a known path with another method is methodMismatch (405); an unknown path undefined (404)', () => {
    expect(table.match('PUT', '/api/v1/keys')).toBe('methodMismatch');
    expect(table.match('GET', '/api/v1/keys/abc')).toBe('methodMismatch');
    expect(table.match('GET', '/api/v1/nothing')).toBeUndefined();
    expect(table.match('GET', '/api/v1/keys/a/b')).toBeUndefined();
    expect(table.match('GET', '/api/v1')).toBeUndefined();
    expect(table.match('GET', '/API/v1/keys')).toBeUndefined();
  });

  test('a parameter never matches an empty segment', () => {
    expect(table.match('GET', '/things//parts/p')).toBeUndefined();
  });

  test('a greedy parameter takes the rest of the path, slashes and encoded slashes alike', () => {
    expect(matched('GET', '/models/gpt').pathParams).toEqual({ id: 'gpt' });
    expect(matched('GET', '/models/openai/gpt-5').pathParams).toEqual({ id: 'openai/gpt-5' });
    expect(matched('GET', '/models/openai%2Fgpt-5').pathParams).toEqual({ id: 'openai/gpt-5' });
    expect(matched('GET', '/models/a/b/c/').pathParams).toEqual({ id: 'a/b/c' });
    expect(table.match('GET', '/models/')).toBeUndefined();
  });

  test('template characters are literal, not regular-expression syntax', () => {
    expect(matched('GET', '/files/v1.0/list').route.id).toBe('dotted');
    expect(table.match('GET', '/files/v1x0/list')).toBeUndefined();
  });

  test('parameters are percent-decoded, an encoded slash included', () => {
    expect(matched('PATCH', '/api/v1/keys/key%20one').pathParams).toEqual({ id: 'key one' });
    expect(matched('GET', '/things/a%2Fb/parts/%E2%9C%93').pathParams).toEqual({ thing: 'a/b', part: '✓' });
  });

  // BUG (reported, not fixed here): route-table.ts decodes with a bare decodeURIComponent, so a
  // malformed escape throws URIError; the local server turns that into a 502. normalizeEvent's
  // matchPathParams keeps such a segment raw. Flip to `test` once fixed.
  test('bad percent-encoding in a parameter does not throw', () => {
    expect(() => table.match('PATCH', '/api/v1/keys/%E0%A4%A')).not.toThrow();
  });

  test('every manifest route matches its own template, and its params come back', () => {
    const manifestTable = new RouteTable(manifest);
    for (const route of manifest) {
      const path = route.path.replace(/\{(\w+)\+?\}/g, (_whole, name: string) => `value-of-${name}`);
      const match = manifestTable.match(route.method, path);
      expect(match).toMatchObject({ route: { id: route.id } });
      const names = [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((found) => found[1]!);
      expect((match as RouteMatch).pathParams).toEqual(
        Object.fromEntries(names.map((name) => [name, `value-of-${name}`])),
      );
    }
  });
});
