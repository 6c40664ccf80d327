import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  ObjectOwnership,
  StorageClass,
  type LifecycleRule,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { FULL_PREFIX, INCREMENTAL_PREFIX } from './export-layout.js';
/** Athena's query results. */
export const ATHENA_RESULTS_PREFIX = 'athena-results';

export interface ExportBucketsProps {
  readonly encryptionKey: IKey;
  readonly exportRetention: Duration;
  readonly athenaResultsRetention: Duration;
  readonly accessLogRetention: Duration;
}

/**
 * The exports bucket (the stack's KMS key, versioned, TLS 1.2+ only, no public access) and the
 * bucket its server access logs go to. Both are retained: they hold finance records.
 */
export class ExportBuckets extends Construct {
  readonly exports: Bucket;
  readonly accessLogs: Bucket;

  constructor(scope: Construct, id: string, props: ExportBucketsProps) {
    super(scope, id);
    const secure = {
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      removalPolicy: RemovalPolicy.RETAIN,
    };
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      ...secure,
      // S3 delivers server access logs only to buckets encrypted with S3-managed keys.
      encryption: BucketEncryption.S3_MANAGED,
      lifecycleRules: [{ id: 'expire-logs', expiration: props.accessLogRetention, ...housekeeping }],
    });
    Validations.of(this.accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This bucket is the destination of the exports bucket server access logs; logging its own access would need a third bucket and so on without end.',
    });
    this.exports = new Bucket(this, 'Exports', {
      ...secure,
      encryption: BucketEncryption.KMS,
      encryptionKey: props.encryptionKey,
      bucketKeyEnabled: true,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'exports/',
      lifecycleRules: [
        ...[INCREMENTAL_PREFIX, FULL_PREFIX].map((prefix) => exportRule(prefix, props.exportRetention)),
        { id: 'expire-athena-results', prefix: `${ATHENA_RESULTS_PREFIX}/`, expiration: props.athenaResultsRetention },
        { id: 'housekeeping', ...housekeeping },
      ],
    });
  }
}

/** Old versions (an overwrite or delete) and abandoned uploads go after a week. */
const housekeeping = {
  noncurrentVersionExpiration: Duration.days(7),
  abortIncompleteMultipartUploadAfter: Duration.days(7),
} satisfies LifecycleRule;

/** Exports move to Infrequent Access (still readable by Athena) after 90 days, and expire at the end of the retention. */
function exportRule(prefix: string, retention: Duration): LifecycleRule {
  const toInfrequentAccess = Duration.days(90);
  return {
    id: `expire-${prefix}-exports`,
    prefix: `${prefix}/`,
    expiration: retention,
    transitions:
      retention.toDays() > toInfrequentAccess.toDays()
        ? [{ storageClass: StorageClass.INFREQUENT_ACCESS, transitionAfter: toInfrequentAccess }]
        : [],
  };
}
