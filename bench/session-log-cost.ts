import { DynamoDBClient, QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { AWS_PRICES } from '../lib/cost/aws-prices.js';
import type { LocalGateway } from '../local/child-runtime.js';

/**
 * What a session's log cost in DynamoDB writes (lambdas/store/session-log.ts), read back from
 * the runtime's table after the session: its pages (events per write), their bytes, and the
 * write units of every item the session wrote, priced at on-demand list price. Besides the
 * pages a session writes its META (created, its lease renewed every third of a lease, ended),
 * its PLAN, its record twice (start and end) and the account's ended-session count.
 */
export interface SessionLogCost {
  readonly events: number;
  readonly pages: number;
  readonly pageBytes: number;
  /** Write units of the pages, and of everything else the session wrote. */
  readonly pageUnits: number;
  readonly otherUnits: number;
  readonly usd: number;
}

const KB = 1024;
/** A fight's own writes beside its pages: META put and end, PLAN, two records, the ended count. */
const FIXED_WRITES = 6;

export async function sessionLogCost(
  gateway: LocalGateway,
  sessionId: string,
  wallMs: number,
  leaseSeconds = 30,
): Promise<SessionLogCost> {
  const client = new DynamoDBClient({
    region: gateway.aws.region,
    endpoint: gateway.aws.dynamodb,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const items: Record<string, AttributeValue>[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: gateway.aws.tables.jobs,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: `ARENA_SESSION#${sessionId}` } },
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    const decoded = items.map((item) => unmarshall(item) as Record<string, unknown>);
    const pages = decoded.filter((item) => String(item['sk']).startsWith('EVENTS#'));
    const size = (item: Record<string, unknown>) => Buffer.byteLength(JSON.stringify(item));
    const units = (item: Record<string, unknown>) => Math.max(1, Math.ceil(size(item) / KB));
    const others = decoded.filter((item) => !String(item['sk']).startsWith('EVENTS#'));
    const renewals = Math.floor(wallMs / ((leaseSeconds * 1000) / 3));
    const pageUnits = pages.reduce((sum, page) => sum + units(page), 0);
    const otherUnits = others.reduce((sum, item) => sum + units(item), 0) + FIXED_WRITES - others.length + renewals;
    return {
      events: pages.reduce((sum, page) => sum + Number(page['last']) - Number(page['first']) + 1, 0),
      pages: pages.length,
      pageBytes: pages.reduce((sum, page) => sum + size(page), 0),
      pageUnits,
      otherUnits,
      usd: ((pageUnits + otherUnits) * AWS_PRICES.dynamodb.perMillionWriteUnits) / 1e6,
    };
  } finally {
    client.destroy();
  }
}
