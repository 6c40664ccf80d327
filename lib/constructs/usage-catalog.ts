import { Aws, Size } from 'aws-cdk-lib';
import { CfnNamedQuery, CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { FULL_EXPORT_COLUMNS, INCREMENTAL_EXPORT_COLUMNS, type GlueColumn } from './export-columns.js';
import {
  FIRST_PARTITION_DAY,
  FULL_PREFIX,
  INCREMENTAL_PREFIX,
  incrementalDayPrefix,
  LEGACY_INCREMENTAL_DATA,
} from './export-layout.js';
import { usageQueries } from './usage-queries.js';

export const INCREMENTAL_TABLE = 'usage_incremental';
export const FULL_TABLE = 'usage_full';
export const LEGACY_INCREMENTAL_TABLE = 'usage_incremental_legacy';

/**
 * Athena projects `usage_incremental`'s `day` partition from these instead of a partition list,
 * so a new day needs no MSCK REPAIR and no crawler, and a query that bounds `day` lists and
 * reads only those days' folders.
 */
export const DAY_PROJECTION: Readonly<Record<string, string>> = {
  'projection.enabled': 'true',
  'projection.day.type': 'date',
  'projection.day.format': 'yyyy-MM-dd',
  'projection.day.range': `${FIRST_PARTITION_DAY},NOW`,
  'projection.day.interval': '1',
  'projection.day.interval.unit': 'DAYS',
};

export interface UsageCatalogProps {
  readonly bucket: IBucket;
  readonly encryptionKey: IKey;
  /** Glue database name: lower case letters, digits and underscores. */
  readonly databaseName: string;
  readonly workGroupName: string;
  readonly athenaResultsPrefix: string;
  readonly bytesScannedCutoffPerQuery: Size;
}

/**
 * The Glue tables over the export layout and the Athena workgroup finance queries them in.
 * `usage_incremental` reads the incremental exports by `day` (the UTC day each was exported
 * for, a folder of its own), so a query bounding `day` reads only those days;
 * `usage_incremental_legacy` reads the exports written before the day folders (one shared
 * folder, no partitions); `usage_full` reads one on-demand full export, named by `export_id` in
 * the query. Partition projection derives both partition keys, so nothing registers partitions.
 */
export class UsageCatalog extends Construct {
  readonly database: CfnDatabase;
  readonly incrementalTable: CfnTable;
  readonly legacyIncrementalTable: CfnTable;
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
      description:
        "Every incremental export of the usage table by the UTC day it exported (written): bound it WHERE day BETWEEN 'YYYY-MM-DD' AND 'YYYY-MM-DD'",
      columns: INCREMENTAL_EXPORT_COLUMNS,
      location: s3(`${INCREMENTAL_PREFIX}/`),
      partitionKeys: [{ name: 'day', type: 'string' }],
      parameters: {
        ...DAY_PROJECTION,
        'storage.location.template': s3(`${incrementalDayPrefix(`\${day}`)}/AWSDynamoDB/data/`),
      },
    });
    this.legacyIncrementalTable = this.jsonTable('LegacyIncrementalTable', {
      name: LEGACY_INCREMENTAL_TABLE,
      description: 'The incremental exports written before exports had day folders (one shared folder, no partitions)',
      columns: INCREMENTAL_EXPORT_COLUMNS,
      location: s3(LEGACY_INCREMENTAL_DATA),
    });
    this.fullTable = this.jsonTable('FullTable', {
      name: FULL_TABLE,
      description: "One on-demand full export of the usage table: query it WHERE export_id = '<export id>'",
      columns: FULL_EXPORT_COLUMNS,
      location: s3(`${FULL_PREFIX}/AWSDynamoDB/`),
      partitionKeys: [{ name: 'export_id', type: 'string' }],
      parameters: {
        'projection.enabled': 'true',
        'projection.export_id.type': 'injected',
        'storage.location.template': s3(`${FULL_PREFIX}/AWSDynamoDB/\${export_id}/data/`),
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
