import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient, ExportTableToPointInTimeCommand } from '@aws-sdk/client-dynamodb';
import {
  exportRequest,
  parseExportArguments,
  resolveTarget,
  UsageExportArgumentError,
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
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  if (args.type === 'incremental') {
    return `Data: s3://${bucket}/incremental/AWSDynamoDB/data/ (read by the usage_incremental table and its named queries)`;
  }
  const range =
    args.fromMs === undefined ? '' : ` AND item.day.s BETWEEN '${day(args.fromMs)}' AND '${day(args.toMs - 1)}'`;
  return [
    `Data: s3://${bucket}/full/AWSDynamoDB/${exportId}/data/ once DescribeExport reports COMPLETED`,
    `Athena: SELECT ... FROM usage_full WHERE export_id = '${exportId}' AND item.type.s = 'ledger'${range}`,
  ].join('\n');
}

async function main(): Promise<void> {
  const cloudFormation = new CloudFormationClient({});
  const dynamo = new DynamoDBClient({});
  try {
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
    console.error(error instanceof UsageExportArgumentError ? `usage:export: ${error.message}` : error);
    process.exitCode = error instanceof UsageExportArgumentError ? 2 : 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
