import type { ExportTableToPointInTimeCommandInput } from '@aws-sdk/client-dynamodb';
import { parseIsoInstant } from '../lambdas/usage/iso-instant.js';
import { FULL_PREFIX, incrementalDayPrefix } from '../lib/constructs/export-layout.js';

/**
 * `npm run usage:export`: the arguments, and the ExportTableToPointInTime request they make.
 * A full export is a snapshot of the whole table at `--to`; `--from` then only narrows what the
 * printed Athena query reads. `--incremental` exports the items written in [--from, --to)
 * instead (15 minutes to 24 hours, within one UTC day), into that day's folder as the
 * scheduled export does, e.g. to re-run a day the schedule missed.
 */
export interface ExportArguments {
  readonly type: 'full' | 'incremental';
  readonly fromMs?: number;
  readonly toMs: number;
  readonly stack: string;
  readonly tableArn?: string;
  readonly bucket?: string;
  readonly kmsKeyArn?: string;
}

/** Where the export goes: the deployed stack's outputs, or flags that override them. */
export interface ExportTarget {
  readonly tableArn: string;
  readonly bucket: string;
  readonly kmsKeyArn: string;
}

export class UsageExportArgumentError extends Error {
  override readonly name = 'UsageExportArgumentError';
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Point-in-time recovery keeps 35 days. */
const RECOVERY_WINDOW_MS = 35 * DAY_MS;
const VALUE_FLAGS = ['--from', '--to', '--stack', '--table-arn', '--bucket', '--kms-key-arn'];
export const DEFAULT_STACK = 'AiGateway';

export function parseExportArguments(argv: readonly string[], now = Date.now()): ExportArguments {
  const values = new Map<string, string>();
  let incremental = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--incremental') incremental = true;
    else if (VALUE_FLAGS.includes(flag)) {
      const value = argv[++i];
      if (value === undefined || value.startsWith('--')) throw new UsageExportArgumentError(`${flag}: needs a value`);
      values.set(flag, value);
    } else
      throw new UsageExportArgumentError(
        `${flag}: unknown argument (known: ${[...VALUE_FLAGS, '--incremental'].join(', ')})`,
      );
  }
  const to = values.get('--to');
  if (to === undefined)
    throw new UsageExportArgumentError('--to: required (a date YYYY-MM-DD or an ISO 8601 date-time)');
  // A date means its whole UTC day: --to is the instant the day ends.
  const toMs = instant('--to', to, 'end');
  const from = values.get('--from');
  const fromMs = from === undefined ? undefined : instant('--from', from, 'start');
  if (toMs > now)
    throw new UsageExportArgumentError(`--to: ${new Date(toMs).toISOString()} is in the future; exports read the past`);
  if (toMs < now - RECOVERY_WINDOW_MS)
    throw new UsageExportArgumentError(
      '--to: point-in-time recovery reaches back 35 days; an older --to cannot be exported',
    );
  if (fromMs !== undefined && fromMs >= toMs) throw new UsageExportArgumentError('--from: must be before --to');
  if (incremental) checkIncrementalWindow(fromMs, toMs);
  return {
    type: incremental ? 'incremental' : 'full',
    fromMs,
    toMs,
    stack: values.get('--stack') ?? DEFAULT_STACK,
    tableArn: values.get('--table-arn'),
    bucket: values.get('--bucket'),
    kmsKeyArn: values.get('--kms-key-arn'),
  };
}

function checkIncrementalWindow(fromMs: number | undefined, toMs: number): void {
  if (fromMs === undefined) throw new UsageExportArgumentError('--from: required with --incremental');
  const span = toMs - fromMs;
  if (span < 15 * MINUTE_MS || span > DAY_MS)
    throw new UsageExportArgumentError('--from: an incremental export covers 15 minutes to 24 hours before --to');
  // The export lands in one day's folder (the `day` partition): a window across midnight would
  // file the next day's entries under the first day.
  if (utcDay(fromMs) !== utcDay(toMs - 1))
    throw new UsageExportArgumentError(
      '--from: an incremental export stays within one UTC day (its day folder); export each day on its own',
    );
}

/** The UTC date of an instant, `YYYY-MM-DD`. */
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function instant(flag: string, value: string, edge: 'start' | 'end'): number {
  const parsed = parseIsoInstant(value);
  if (!parsed)
    throw new UsageExportArgumentError(`${flag}: must be an ISO 8601 date (YYYY-MM-DD) or date-time, got ${value}`);
  return parsed.isDate && edge === 'end' ? parsed.ms + DAY_MS : parsed.ms;
}

/** Where an export goes: full exports share `full/`, an incremental one goes to its day's folder. */
export const exportPrefix = (args: ExportArguments) =>
  args.type === 'full' ? FULL_PREFIX : incrementalDayPrefix(utcDay(args.fromMs!));

export function exportRequest(args: ExportArguments, target: ExportTarget): ExportTableToPointInTimeCommandInput {
  const common = {
    TableArn: target.tableArn,
    S3Bucket: target.bucket,
    S3Prefix: exportPrefix(args),
    S3SseAlgorithm: 'KMS',
    S3SseKmsKeyId: target.kmsKeyArn,
    ExportFormat: 'DYNAMODB_JSON',
  } as const;
  if (args.type === 'full') return { ...common, ExportType: 'FULL_EXPORT', ExportTime: new Date(args.toMs) };
  return {
    ...common,
    ExportType: 'INCREMENTAL_EXPORT',
    IncrementalExportSpecification: {
      ExportFromTime: new Date(args.fromMs!),
      ExportToTime: new Date(args.toMs),
      ExportViewType: 'NEW_IMAGE',
    },
  };
}

/** The stack outputs that name the export's table, bucket and key (lib/gateway-stack.ts). */
export const TARGET_OUTPUTS = {
  tableArn: 'UsageTableArn',
  bucket: 'UsageExportBucketName',
  kmsKeyArn: 'UsageExportKeyArn',
} as const;

/** Flags win; the stack's outputs are read only when a flag is missing. */
export async function resolveTarget(
  args: ExportArguments,
  stackOutputs: (stack: string) => Promise<Record<string, string>>,
): Promise<ExportTarget> {
  const flags = { tableArn: args.tableArn, bucket: args.bucket, kmsKeyArn: args.kmsKeyArn };
  if (flags.tableArn && flags.bucket && flags.kmsKeyArn) return flags as ExportTarget;
  const outputs = await stackOutputs(args.stack);
  const pick = (name: keyof ExportTarget) => {
    const value = flags[name] ?? outputs[TARGET_OUTPUTS[name]];
    if (!value)
      throw new UsageExportArgumentError(
        `stack ${args.stack} has no output ${TARGET_OUTPUTS[name]} (deploy it, or pass the flag)`,
      );
    return value;
  };
  return { tableArn: pick('tableArn'), bucket: pick('bucket'), kmsKeyArn: pick('kmsKeyArn') };
}
