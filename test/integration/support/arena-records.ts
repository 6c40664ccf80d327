import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { LocalGateway } from '../../../local/child-runtime.js';
import { ledgerItems } from './ledger-entries.js';
import { until } from './poll.js';

export { until } from './poll.js';
import { localDynamo } from './ledger.js';

/** Items of one account whose sort key starts with `prefix`, in one table. */
async function accountItems(gateway: LocalGateway, table: string, accountId: string, prefix: string) {
  const dynamo = localDynamo(gateway);
  try {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': { S: `ACCOUNT#${accountId}` }, ':prefix': { S: prefix } },
      }),
    );
    return (page.Items ?? []).map((item) => unmarshall(item) as Record<string, any>);
  } finally {
    dynamo.destroy();
  }
}

/** The ledger entries of one arena session (each answer and each vote), from every ledger shard. */
export function sessionLedger(gateway: LocalGateway, accountId: string, sessionId: string, expected: number) {
  return until(
    async () =>
      ((await ledgerItems(gateway, accountId)) as unknown as Record<string, any>[]).filter(
        (entry) => entry['sessionId'] === sessionId,
      ),
    (entries) => entries.length >= expected,
  );
}

/** The session's record in the jobs table (written once the session ends). */
export async function sessionRecord(gateway: LocalGateway, accountId: string, sessionId: string) {
  const records = await until(
    async () =>
      (await accountItems(gateway, gateway.aws.tables.jobs, accountId, 'ARENA#')).filter(
        (record) => record['sessionId'] === sessionId,
      ),
    (found) => found.length > 0,
  );
  return records[0];
}
