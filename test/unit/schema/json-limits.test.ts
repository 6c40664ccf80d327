import { findJsonViolation } from '../../../lambdas/schema/json-limits.js';

const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown;

test('depth counts nested objects and arrays; scalars add none', () => {
  expect(findJsonViolation(1, { maxDepth: 0 })).toBeUndefined();
  expect(findJsonViolation({ a: [1] }, { maxDepth: 2 })).toBeUndefined();
  expect(findJsonViolation({ a: [[1]] }, { maxDepth: 2 })).toEqual({ kind: 'depth', path: ['a', 0] });
  expect(findJsonViolation({ a: [{}] }, { maxDepth: 2 })).toEqual({ kind: 'depth', path: ['a', 0] });
});

test('a value 100 000 deep is measured without recursion', () => {
  const violation = findJsonViolation(nested(100_000), { maxDepth: 64 });
  expect(violation?.kind).toBe('depth');
  expect(violation?.path).toHaveLength(64);
});

test('the first violation in document order is reported', () => {
  expect(findJsonViolation({ a: 1, b: [Infinity], c: -Infinity }, { maxDepth: 5 })).toEqual({
    kind: 'number',
    path: ['b', 0],
  });
  expect(findJsonViolation({ a: NaN }, { maxDepth: 5 })).toEqual({ kind: 'number', path: ['a'] });
});

test('every value counts towards maxNodes', () => {
  // The object, its two members, and the array's two items.
  const value = { a: 1, b: [true, null] };
  expect(findJsonViolation(value, { maxDepth: 5, maxNodes: 5 })).toBeUndefined();
  expect(findJsonViolation(value, { maxDepth: 5, maxNodes: 4 })).toEqual({ kind: 'nodes', path: [] });
});
