import { canonicalJson } from '../../../lambdas/schema/canonical-json.js';

test('canonical JSON sorts keys at every depth', () => {
  expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
});

test('keys holding undefined are left out, as JSON.stringify leaves them out', () => {
  expect(canonicalJson({ a: undefined, b: 1 })).toBe(JSON.stringify({ b: 1 }));
  expect(canonicalJson([undefined])).toBe('[null]');
});
