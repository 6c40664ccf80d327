import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient, ExportTableToPointInTimeCommand } from '@aws-sdk/client-dynamodb';
import {
  exportPrefix,
  exportRequest,
  parseExportArguments,
  resolveTarget,
  UsageExportArgumentError,
  utcDay,
  type ExportArguments,
} from './usage-export-request.js';

/** `npm run usage:export -- --to 2026-11-24 [--from 2026-11-01] [--incremental] [--stack AiGateway]`. */
export interface ExportClients {
  readonly stackOutputs: (stack: string) => Promise<Record<string, string>>;
  readonly startExport: (
    command: ExportTableToPointInTimeCommand,
  ) => Promise<{ ExportDescription?: { ExportArn?: string } }>;
  readonly print: (line: string) => void;
}

export async function runUsageExport(
  argv: readonly string[],
  clients: ExportClients,
  now = Date.now(),
): Promise<string> {
  const args = parseExportArguments(argv, now);
  const target = await resolveTarget(args, clients.stackOutputs);
  const request = exportRequest(args, target);
  const answer = await clients.startExport(new ExportTableToPointInTimeCommand(request));
  const exportArn = answer.ExportDescription?.ExportArn ?? '';
  const exportId = exportArn.split('/').pop() ?? '';
  clients.print(`Started ${args.type} export ${exportArn}`);
  clients.print(describeWhere(args, target.bucket, exportId));
  return exportArn;
}

function describeWhere(args: ExportArguments, bucket: string, exportId: string): string {
  if (args.type === 'incremental') {
    return `Data: s3://${bucket}/${exportPrefix(args)}/AWSDynamoDB/data/ (read by the usage_incremental table: day = '${utcDay(args.fromMs!)}')`;
  }
  const range =
    args.fromMs === undefined ? '' : ` AND item.day.s BETWEEN '${utcDay(args.fromMs)}' AND '${utcDay(args.toMs - 1)}'`;
  return [
    `Data: s3://${bucket}/full/AWSDynamoDB/${exportId}/data/ once DescribeExport reports COMPLETED`,
    `Athena: SELECT ... FROM usage_full WHERE export_id = '${exportId}' AND item.type.s = 'ledger'${range}`,
  ].join('\n');
}

/**
 * What the AWS SDK needs from the operator's environment, said in one line instead of the SDK's
 * stack trace ("Region is missing", "Could not load credentials from any providers").
 */
const NO_REGION =
  'no AWS Region: set AWS_REGION to the Region the stack is deployed in (or AWS_PROFILE to a profile that names one); ' +
  'the export reads that stack’s outputs (--stack, default AiGateway) unless --table-arn, --bucket and --kms-key-arn are given';
const NO_CREDENTIALS =
  'no AWS credentials: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, as for the AWS CLI';

async function main(): Promise<void> {
  const cloudFormation = new CloudFormationClient({});
  const dynamo = new DynamoDBClient({});
  try {
    // Before anything is asked of AWS, and after the arguments are checked (a wrong flag first).
    parseExportArguments(process.argv.slice(2));
    await cloudFormation.config.region().catch(() => {
      throw new UsageExportSetupError(NO_REGION);
    });
    await runUsageExport(process.argv.slice(2), {
      stackOutputs: async (stack) => {
        const found = await cloudFormation.send(new DescribeStacksCommand({ StackName: stack }));
        const outputs = found.Stacks?.[0]?.Outputs ?? [];
        return Object.fromEntries(outputs.map((output) => [output.OutputKey ?? '', output.OutputValue ?? '']));
      },
      startExport: (command) => dynamo.send(command),
      print: (line) => console.log(line),
    });
  } catch (error) {
    const setup =
      error instanceof UsageExportSetupError
        ? error.message
        : (error as Error).name === 'CredentialsProviderError'
          ? NO_CREDENTIALS
          : undefined;
    const line = error instanceof UsageExportArgumentError ? error.message : setup;
    console.error(line === undefined ? error : `usage:export: ${line}`);
    process.exitCode = error instanceof UsageExportArgumentError ? 2 : 1;
  }
}

/** The operator's environment lacks what the AWS SDK needs: a line to act on, exit 1. */
class UsageExportSetupError extends Error {
  override readonly name = 'UsageExportSetupError';
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
