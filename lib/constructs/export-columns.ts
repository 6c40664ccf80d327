import { KEY_ATTRIBUTES, USAGE_ATTRIBUTES, type AttributeType } from '../../lambdas/usage/usage-attributes.js';

/**
 * Hive column types of the usage table's export lines, as the Glue tables declare them for the
 * OpenX JSON SerDe. An item keeps DynamoDB's typed form, so `costMicroUsd` is
 * `struct<n:string>` and a query reads `item.costmicrousd.n` and casts it. Names are lower case
 * because Glue stores them so and the SerDe matches JSON keys case-insensitively.
 */
export interface GlueColumn {
  readonly name: string;
  readonly type: string;
}

const VALUE_TYPES: Readonly<Record<AttributeType, string>> = {
  S: 'struct<s:string>',
  N: 'struct<n:string>',
  BOOL: 'struct<bool:boolean>',
};

const structOf = (attributes: Readonly<Record<string, AttributeType>>) =>
  `struct<${Object.entries(attributes)
    .map(([name, type]) => `${name.toLowerCase()}:${VALUE_TYPES[type]}`)
    .join(',')}>`;

/** One image of a usage item: a ledger entry or a day total. */
export const IMAGE_TYPE = structOf(USAGE_ATTRIBUTES);

/** `{"Item":{...}}` lines. */
export const FULL_EXPORT_COLUMNS: readonly GlueColumn[] = [{ name: 'item', type: IMAGE_TYPE }];

/** `{"Metadata":...,"Keys":...,"NewImage":...}` lines (the schedule exports NEW_IMAGE only). */
export const INCREMENTAL_EXPORT_COLUMNS: readonly GlueColumn[] = [
  { name: 'metadata', type: structOf({ writeTimestampMicros: 'N' }) },
  { name: 'keys', type: structOf(KEY_ATTRIBUTES) },
  { name: 'newimage', type: IMAGE_TYPE },
];
