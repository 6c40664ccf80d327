import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  Billing,
  ProjectionType,
  StreamViewType,
  TableEncryptionV2,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import {
  PARTITION_KEY,
  SORT_KEY,
  TTL_ATTRIBUTE,
  tableSchemas,
  type TableName,
  type TableSchema,
} from '../../lambdas/store/table-schema.js';

export interface TablesProps {
  readonly encryptionKey: IKey;
  /** @default the shared table schemas, so the cloud and the local runtime declare the same tables */
  readonly schemas?: readonly TableSchema[];
  /** Streams beyond those the schemas declare (a schema's own `stream` wins). @default DEFAULT_STREAMS */
  readonly streams?: Partial<Record<TableName, StreamViewType>>;
}

/**
 * The usage table streams its new items to the usage aggregator (lib/constructs/usage-pipeline.ts),
 * which needs each new ledger entry whole and nothing of what it replaced. Declared here until
 * the local runtime runs the aggregator too; then the usage schema declares it for both.
 */
export const DEFAULT_STREAMS: Partial<Record<TableName, StreamViewType>> = { usage: StreamViewType.NEW_IMAGE };

export interface GatewayTable {
  readonly schema: TableSchema;
  readonly table: TableV2;
}

/** One on-demand table per schema entry, split by lifecycle. */
export class Tables extends Construct {
  private readonly byName = new Map<TableName, GatewayTable>();

  constructor(scope: Construct, id: string, props: TablesProps) {
    super(scope, id);
    for (const schema of props.schemas ?? tableSchemas) {
      const table = new TableV2(this, pascal(schema.name), {
        partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
        sortKey: { name: SORT_KEY, type: AttributeType.STRING },
        billing: Billing.onDemand(),
        encryption: TableEncryptionV2.customerManagedKey(props.encryptionKey),
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        timeToLiveAttribute: TTL_ATTRIBUTE,
        deletionProtection: schema.deletionProtection,
        dynamoStream: (schema.stream as StreamViewType | undefined) ?? (props.streams ?? DEFAULT_STREAMS)[schema.name],
        // Protected tables hold business records (keys, the finance ledger); the others can be rebuilt.
        removalPolicy: schema.deletionProtection ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
        globalSecondaryIndexes: schema.indexes.map((index) => ({
          indexName: index.name,
          partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
          sortKey: { name: index.sortKey, type: AttributeType.STRING },
          projectionType: ProjectionType.ALL,
        })),
      });
      this.byName.set(schema.name, { schema, table });
    }
  }

  get all(): readonly GatewayTable[] {
    return [...this.byName.values()];
  }

  get(name: TableName): GatewayTable {
    const found = this.byName.get(name);
    if (!found) throw new Error(`table ${name} is not declared in the table schemas`);
    return found;
  }
}

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
