import { marshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { toItem } from '../../../lambdas/store/dynamo.js';

/**
 * toItem converts the common attributes itself and hands the rest to the SDK's converter; the
 * SDK's own `marshall` with the same options is the oracle, for values and for refusals alike.
 */

const OPTIONS = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;

const outcome = (convert: () => unknown) => {
  try {
    return { item: convert() };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

const scalar = fc.oneof(
  fc.string(),
  fc.constant(''),
  fc.integer(),
  fc.double(),
  fc.constantFrom(
    0,
    -0,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    -Number.MAX_SAFE_INTEGER - 2,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    1e300,
  ),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt(),
  fc.constant(() => 1),
);

const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 3 }),
    fc.uint8Array({ maxLength: 4 }),
    fc.constant(new Set(['a', 'b'])),
    fc.constant(new Set<string>()),
    fc.constant(new Date(0)),
  ),
})).value;

test('toItem is marshall: the same item, or the same refusal, for any record', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string({ maxLength: 6 }), value, { maxKeys: 6 }), (record) => {
      expect(outcome(() => toItem(record))).toEqual(outcome(() => marshall(record, OPTIONS)));
    }),
    { numRuns: 2000 },
  );
});

test('records that are not plain objects go to marshall whole', () => {
  class Entry {
    readonly pk = 'a';
  }
  expect(outcome(() => toItem(new Entry() as unknown as Record<string, unknown>))).toEqual(
    outcome(() => marshall(new Entry(), OPTIONS)),
  );
  const bare = Object.assign(Object.create(null) as Record<string, unknown>, { pk: 'a', n: 1 });
  expect(toItem(bare)).toEqual(marshall(bare, OPTIONS));
});
