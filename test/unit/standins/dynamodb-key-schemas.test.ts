import { keySchemaOf, keySchemaReader } from '../../../local/dynamodb-key-schemas.mjs';

/** The key-schema reader the embedded DynamoDB's transaction, PartiQL and latency layers share. */
const TABLE = {
  KeySchema: [
    { AttributeName: 'sk', KeyType: 'RANGE' },
    { AttributeName: 'pk', KeyType: 'HASH' },
  ],
  GlobalSecondaryIndexes: [{ IndexName: 'byOwner', KeySchema: [{ AttributeName: 'owner', KeyType: 'HASH' }] }],
};

describe('keySchemaOf', () => {
  test('hash first among the names, whatever order KeySchema lists them in, and each index’s hash', () => {
    expect(keySchemaOf(TABLE)).toEqual({
      hash: 'pk',
      range: 'sk',
      names: ['pk', 'sk'],
      indexes: [{ name: 'byOwner', hash: 'owner' }],
    });
  });

  test('a table with a hash key alone', () => {
    expect(keySchemaOf({ KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] })).toEqual({
      hash: 'id',
      range: undefined,
      names: ['id'],
      indexes: [],
    });
  });
});

describe('keySchemaReader', () => {
  test('asks once per table, concurrent askers sharing the read, and passes the context on', async () => {
    const asked: [string, unknown][] = [];
    const read = keySchemaReader(async (table: string, context: unknown) => {
      asked.push([table, context]);
      return TABLE;
    });
    const [a, b] = await Promise.all([read('t1', 'first'), read('t1', 'second')]);
    await read('t2', 'third');
    await read('t1', 'fourth');
    expect(a).toBe(b);
    expect(asked).toEqual([
      ['t1', 'first'],
      ['t2', 'third'],
    ]);
  });

  test('a failed read is not kept: the next asker reads again', async () => {
    let calls = 0;
    const read = keySchemaReader(async () => {
      calls++;
      if (calls === 1) throw new Error('ResourceNotFoundException');
      return TABLE;
    });
    await expect(read('t')).rejects.toThrow('ResourceNotFoundException');
    await expect(read('t')).resolves.toMatchObject({ hash: 'pk' });
    expect(calls).toBe(2);
  });
});
