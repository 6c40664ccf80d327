// Types of local/dynamodb-key-schemas.mjs, for the TypeScript that drives it (tests).
/** A table's keys, from its DynamoDB description. */
export interface KeySchema {
  readonly hash: string | undefined;
  readonly range: string | undefined;
  /** The key attributes, hash first. */
  readonly names: readonly string[];
  readonly indexes: readonly { readonly name: string; readonly hash: string | undefined }[];
}

/** A DescribeTable `Table`, as far as its keys go. */
export interface TableDescription {
  readonly KeySchema?: readonly { readonly AttributeName: string; readonly KeyType: string }[];
  readonly GlobalSecondaryIndexes?: readonly {
    readonly IndexName: string;
    readonly KeySchema?: readonly { readonly AttributeName: string; readonly KeyType: string }[];
  }[];
}

export declare function keySchemaReader<Context extends unknown[]>(
  describe: (table: string, ...context: Context) => Promise<TableDescription | undefined>,
): (table: string, ...context: Context) => Promise<KeySchema>;

export declare function keySchemaOf(table: TableDescription | undefined): KeySchema;
