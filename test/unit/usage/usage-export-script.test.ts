import type { ExportTableToPointInTimeCommand } from '@aws-sdk/client-dynamodb';
import { runUsageExport } from '../../../bin/usage-export.js';
import { parseExportArguments, UsageExportArgumentError } from '../../../bin/usage-export-request.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const TABLE = 'arn:aws:dynamodb:eu-west-1:123456789012:table/AiGateway-TablesUsage';
const OUTPUTS = {
  UsageTableArn: TABLE,
  UsageExportBucketName: 'aigateway-exports',
  UsageExportKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/abc',
};

/** Runs the script with recording clients: the request it would send, the stacks it asked about, what it printed. */
async function run(argv: string[], outputs: Record<string, string> = OUTPUTS) {
  const sent: ExportTableToPointInTimeCommand[] = [];
  const stacks: string[] = [];
  const printed: string[] = [];
  await runUsageExport(
    argv,
    {
      stackOutputs: async (stack) => (stacks.push(stack), outputs),
      startExport: async (command) => (
        sent.push(command),
        { ExportDescription: { ExportArn: `${TABLE}/export/01764000000000-a1b2c3d4` } }
      ),
      print: (line) => printed.push(line),
    },
    NOW,
  );
  return { request: sent[0]!.input, sent, stacks, printed: printed.join('\n') };
}

test('--from/--to: a full export, a snapshot at the end of --to, into full/ under the stack key', async () => {
  const { request, sent, stacks, printed } = await run(['--from', '2026-11-01', '--to', '2026-11-23']);
  expect(sent).toHaveLength(1);
  expect(stacks).toEqual(['AiGateway']);
  expect(request).toEqual({
    TableArn: TABLE,
    S3Bucket: 'aigateway-exports',
    S3Prefix: 'full',
    S3SseAlgorithm: 'KMS',
    S3SseKmsKeyId: OUTPUTS.UsageExportKeyArn,
    ExportFormat: 'DYNAMODB_JSON',
    ExportType: 'FULL_EXPORT',
    ExportTime: new Date('2026-11-24T00:00:00Z'),
  });
  expect(printed).toContain('s3://aigateway-exports/full/AWSDynamoDB/01764000000000-a1b2c3d4/data/');
  expect(printed).toContain("WHERE export_id = '01764000000000-a1b2c3d4'");
  expect(printed).toContain("item.day.s BETWEEN '2026-11-01' AND '2026-11-23'");
});

test('--incremental: the items written in [--from, --to), into the day folder the schedule uses', async () => {
  const { request, printed } = await run([
    '--incremental',
    '--from',
    '2026-11-22',
    '--to',
    '2026-11-22',
    '--stack',
    'Finance',
  ]);
  expect(printed).toContain(
    "s3://aigateway-exports/incremental/day=2026-11-22/AWSDynamoDB/data/ (read by the usage_incremental table: day = '2026-11-22')",
  );
  expect(request).toMatchObject({
    S3Prefix: 'incremental/day=2026-11-22',
    ExportType: 'INCREMENTAL_EXPORT',
    IncrementalExportSpecification: {
      ExportFromTime: new Date('2026-11-22T00:00:00Z'),
      ExportToTime: new Date('2026-11-23T00:00:00Z'),
      ExportViewType: 'NEW_IMAGE',
    },
  });
  expect(request.ExportTime).toBeUndefined();
});

test('--incremental: part of a day goes to that day’s folder', async () => {
  const { request } = await run(['--incremental', '--from', '2026-11-22T18:00:00Z', '--to', '2026-11-23T00:00:00Z']);
  expect(request.S3Prefix).toBe('incremental/day=2026-11-22');
});

test('flags override the stack outputs, and with all three the stack is not read', async () => {
  const { request, stacks } = await run(
    ['--to', '2026-11-24T06:00:00Z', '--table-arn', 'arn:t', '--bucket', 'b', '--kms-key-arn', 'arn:k'],
    {},
  );
  expect(stacks).toEqual([]);
  expect(request).toMatchObject({ TableArn: 'arn:t', S3Bucket: 'b', S3SseKmsKeyId: 'arn:k' });
  expect(request.ExportTime).toEqual(new Date('2026-11-24T06:00:00Z'));
});

test('a stack without the outputs is a clear error, and nothing is started', async () => {
  await expect(run(['--to', '2026-11-23'], {})).rejects.toThrow(/stack AiGateway has no output UsageTableArn/);
});

test.each([
  [[], /--to: required/],
  [['--to'], /--to: needs a value/],
  [['--to', '2026-02-30'], /--to: must be an ISO 8601 date/],
  [['--to', 'yesterday'], /--to: must be an ISO 8601 date/],
  [['--to', '2026-11-24'], /--to: .* is in the future/],
  [['--to', '2026-10-01'], /--to: point-in-time recovery reaches back 35 days/],
  [['--from', '2026-11-23', '--to', '2026-11-22'], /--from: must be before --to/],
  [['--incremental', '--to', '2026-11-22'], /--from: required with --incremental/],
  [['--incremental', '--from', '2026-11-20', '--to', '2026-11-22'], /15 minutes to 24 hours/],
  [['--incremental', '--from', '2026-11-22T00:00:00Z', '--to', '2026-11-22T00:10:00Z'], /15 minutes to 24 hours/],
  [['--incremental', '--from', '2026-11-22T12:00:00Z', '--to', '2026-11-23T12:00:00Z'], /within one UTC day/],
  [['--to', '2026-11-22', '--format', 'ion'], /--format: unknown argument/],
])('%j is refused: %s', (argv, message) => {
  expect(() => parseExportArguments(argv, NOW)).toThrow(UsageExportArgumentError);
  expect(() => parseExportArguments(argv, NOW)).toThrow(message);
});
