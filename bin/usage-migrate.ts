import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { createDynamoDb } from '../lambdas/store/dynamodb-client.js';
import type { Credentials } from '../lambdas/store/signed-request.js';
import { migrateLegacyLedger, type MigrationOutcome } from '../lambdas/usage/legacy-ledger-migration.js';

/**
 * `npm run usage:migrate -- [--stack AiGateway | --table <name>] [--dry-run]`: copies the entries
 * an earlier version kept in the unsharded ledger to their shards, so reports count them
 * (lambdas/usage/legacy-ledger-migration.ts). Credentials, Region and endpoint are the AWS
 * SDK's usual environment (AWS_ENDPOINT_URL_DYNAMODB for the local runtime's DynamoDB).
 */
export class MigrateArgumentError extends Error {}

export interface MigrateArguments {
  readonly stack: string;
  readonly table?: string;
  readonly dryRun: boolean;
}

export function parseMigrateArguments(argv: readonly string[]): MigrateArguments {
  let stack = 'AiGateway';
  let table: string | undefined;
  let dryRun = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--dry-run') dryRun = true;
    else if (flag === '--stack' || flag === '--table') {
      const value = argv[++i];
      if (value === undefined || value.startsWith('--')) throw new MigrateArgumentError(`${flag}: needs a value`);
      if (flag === '--stack') stack = value;
      else table = value;
    } else throw new MigrateArgumentError(`${flag}: unknown (use --stack, --table, --dry-run)`);
  }
  return { stack, ...(table === undefined ? {} : { table }), dryRun };
}

async function usageTableOf(stack: string): Promise<string> {
  const cloudFormation = new CloudFormationClient({});
  try {
    const found = await cloudFormation.send(new DescribeStacksCommand({ StackName: stack }));
    const arn = found.Stacks?.[0]?.Outputs?.find((output) => output.OutputKey === 'UsageTableArn')?.OutputValue;
    if (!arn) throw new MigrateArgumentError(`stack ${stack} has no UsageTableArn output: pass --table`);
    return arn.slice(arn.lastIndexOf('/') + 1);
  } finally {
    cloudFormation.destroy();
  }
}

function environmentCredentials(): Credentials {
  const accessKeyId = process.env['AWS_ACCESS_KEY_ID'];
  const secretAccessKey = process.env['AWS_SECRET_ACCESS_KEY'];
  if (!accessKeyId || !secretAccessKey)
    throw new MigrateArgumentError('set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN if any)');
  return { accessKeyId, secretAccessKey, sessionToken: process.env['AWS_SESSION_TOKEN'] || undefined };
}

export async function runUsageMigrate(
  argv: readonly string[],
  print: (line: string) => void = (line) => console.log(line),
): Promise<MigrationOutcome> {
  const args = parseMigrateArguments(argv);
  const region = process.env['AWS_REGION'] || process.env['AWS_DEFAULT_REGION'];
  if (!region) throw new MigrateArgumentError('set AWS_REGION');
  const credentials = environmentCredentials();
  const table = args.table ?? (await usageTableOf(args.stack));
  const db = createDynamoDb({
    region,
    endpoint:
      process.env['AWS_ENDPOINT_URL_DYNAMODB'] ||
      process.env['AWS_ENDPOINT_URL'] ||
      `https://dynamodb.${region}.amazonaws.com`,
    credentials: () => credentials,
  });
  return migrateLegacyLedger({ db, table, dryRun: args.dryRun, print });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    await runUsageMigrate(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof MigrateArgumentError ? `usage:migrate: ${error.message}` : error);
    process.exitCode = error instanceof MigrateArgumentError ? 2 : 1;
  }
}
