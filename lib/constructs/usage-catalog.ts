import { Aws, Size } from 'aws-cdk-lib';
import { CfnNamedQuery, CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { FULL_EXPORT_COLUMNS, INCREMENTAL_EXPORT_COLUMNS, type GlueColumn } from './export-columns.js';
import { usageQueries } from './usage-queries.js';

export const INCREMENTAL_TABLE = 'usage_incremental';
export const FULL_TABLE = 'usage_full';

export interface UsageCatalogProps {
  readonly bucket: IBucket;
  readonly encryptionKey: IKey;
  /** Glue database name: lower case letters, digits and underscores. */
  readonly databaseName: string;
  readonly workGroupName: string;
  readonly incrementalPrefix: string;
  readonly fullPrefix: string;
  readonly athenaResultsPrefix: string;
  readonly bytesScannedCutoffPerQuery: Size;
}

/**
 * The Glue tables over the export layout and the Athena workgroup finance queries them in.
 * `usage_incremental` reads every scheduled export at once (incremental exports share one data
 * folder); `usage_full` reads one on-demand full export, named by `export_id` in the query
 * (each full export has its own folder: partition projection injects it, so nothing registers partitions).
 */
export class UsageCatalog extends Construct {
  readonly database: CfnDatabase;
  readonly incrementalTable: CfnTable;
  readonly fullTable: CfnTable;
  readonly workGroup: CfnWorkGroup;
  readonly namedQueries: readonly CfnNamedQuery[];

  constructor(scope: Construct, id: string, props: UsageCatalogProps) {
    super(scope, id);
    const s3 = (path: string) => `s3://${props.bucket.bucketName}/${path}`;
    this.database = new CfnDatabase(this, 'Database', {
      catalogId: Aws.ACCOUNT_ID,
      databaseInput: { name: props.databaseName, description: 'AI gateway usage exports (DynamoDB JSON)' },
    });
    this.incrementalTable = this.jsonTable('IncrementalTable', {
      name: INCREMENTAL_TABLE,
      description: 'Every scheduled incremental export of the usage table: one line per item written in its window',
      columns: INCREMENTAL_EXPORT_COLUMNS,
      location: s3(`${props.incrementalPrefix}/AWSDynamoDB/data/`),
    });
    this.fullTable = this.jsonTable('FullTable', {
      name: FULL_TABLE,
      description: "One on-demand full export of the usage table: query it WHERE export_id = '<export id>'",
      columns: FULL_EXPORT_COLUMNS,
      location: s3(`${props.fullPrefix}/AWSDynamoDB/`),
      partitionKeys: [{ name: 'export_id', type: 'string' }],
      parameters: {
        'projection.enabled': 'true',
        'projection.export_id.type': 'injected',
        'storage.location.template': s3(`${props.fullPrefix}/AWSDynamoDB/\${export_id}/data/`),
      },
    });
    this.workGroup = new CfnWorkGroup(this, 'WorkGroup', {
      name: props.workGroupName,
      description: 'Finance queries over the usage exports',
      state: 'ENABLED',
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: props.bytesScannedCutoffPerQuery.toBytes(),
        engineVersion: { selectedEngineVersion: 'AUTO' },
        resultConfiguration: {
          outputLocation: s3(`${props.athenaResultsPrefix}/`),
          encryptionConfiguration: { encryptionOption: 'SSE_KMS', kmsKey: props.encryptionKey.keyArn },
        },
      },
    });
    this.namedQueries = usageQueries(props.databaseName, INCREMENTAL_TABLE).map(
      (query) =>
        new CfnNamedQuery(this, query.name, {
          name: query.name,
          description: query.description,
          database: this.database.ref,
          workGroup: this.workGroup.ref,
          queryString: query.sql,
        }),
    );
  }

  private jsonTable(
    id: string,
    spec: {
      name: string;
      description: string;
      columns: readonly GlueColumn[];
      location: string;
      partitionKeys?: GlueColumn[];
      parameters?: Record<string, string>;
    },
  ): CfnTable {
    return new CfnTable(this, id, {
      catalogId: Aws.ACCOUNT_ID,
      // The reference (the database's name) also orders the table after its database.
      databaseName: this.database.ref,
      tableInput: {
        name: spec.name,
        description: spec.description,
        tableType: 'EXTERNAL_TABLE',
        parameters: { classification: 'json', has_encrypted_data: 'true', ...spec.parameters },
        partitionKeys: spec.partitionKeys,
        storageDescriptor: {
          columns: [...spec.columns],
          location: spec.location,
          inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
          // A line the SerDe cannot parse fails the query rather than turning into a row of nulls.
          serdeInfo: { serializationLibrary: 'org.openx.data.jsonserde.JsonSerDe' },
        },
      },
    });
  }
}
