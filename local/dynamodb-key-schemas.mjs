// Table key schemas for the embedded DynamoDB's layers. The transaction, PartiQL and latency
// layers each need a table's key attribute names (an item's key, its partition, two writes to
// one item); each asks DynamoDB with DescribeTable through its own way of calling the layers
// behind it, and keeps the answer: tables never change keys while the runtime runs.

/**
 * A reader of key schemas, `(table, ...context) => Promise<schema>`, that asks
 * `describe(table, ...context)` (resolving to DescribeTable's `Table`, rejecting when it cannot)
 * once per table, concurrent askers sharing the read. A failed read is not kept.
 */
export function keySchemaReader(describe) {
  const known = new Map();
  return (table, ...context) => {
    let schema = known.get(table);
    if (!schema) {
      schema = describe(table, ...context).then(keySchemaOf);
      schema.catch(() => known.delete(table));
      known.set(table, schema);
    }
    return schema;
  };
}

/**
 * A table description's keys: `hash` and `range` (undefined without one), `names` (the key
 * attributes, hash first) and each global secondary index's `{ name, hash }`.
 */
export function keySchemaOf(table) {
  const hashOf = (keys) => keys?.find((k) => k.KeyType === 'HASH')?.AttributeName;
  const hash = hashOf(table?.KeySchema);
  const range = table?.KeySchema?.find((k) => k.KeyType === 'RANGE')?.AttributeName;
  return {
    hash,
    range,
    names: [hash, range].filter((name) => name !== undefined),
    indexes: (table?.GlobalSecondaryIndexes ?? []).map((i) => ({ name: i.IndexName, hash: hashOf(i.KeySchema) })),
  };
}
