import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { dynamo } from '../../../lambdas/store/dynamo.js';
import {
  encodeContent,
  getRequestContent,
  MAX_CONTENT_BYTES,
  putRequestContent,
  type RequestContent,
} from '../../../lambdas/store/request-contents.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';

/** Requests' kept content (lambdas/store/request-contents.ts) in the embedded DynamoDB. */
const db = useLocalDynamoDb('request-contents');
beforeAll(() => {
  process.env['JOBS_TABLE'] = db().tableNames.jobs;
});

const content = (messages: unknown[]): RequestContent => ({
  requestId: 'req-1',
  at: '2026-11-27T10:00:00.000Z',
  keyId: 'key-1',
  route: 'chat-completions',
  messages,
  answer: [{ role: 'assistant', content: 'hello' }],
  truncated: false,
});

test('kept and read back by its account, under its own partition, until its retention ends', async () => {
  const now = Date.parse('2026-11-27T10:00:01Z');
  expect(await putRequestContent('acc_1', content([{ role: 'user', content: 'hi' }]), 7, now)).toBe(true);
  const { Item } = await dynamo().getItem({
    TableName: db().tableNames.jobs,
    Key: { pk: { S: 'ACCOUNT#acc_1#REQUEST#req-1' }, sk: { S: 'CONTENT' } },
  });
  expect(Number(Item?.['expiresAt']?.N)).toBe(Math.floor(now / 1000) + 7 * 86_400);
  expect(await getRequestContent(dynamo(), 'acc_1', 'req-1', now)).toEqual(content([{ role: 'user', content: 'hi' }]));
  expect(await getRequestContent(dynamo(), 'acc_2', 'req-1', now)).toBeUndefined();
  expect(await getRequestContent(dynamo(), 'acc_1', 'req-1', now + 8 * 86_400_000)).toBeUndefined();
});

test('what does not fit an item loses its oldest messages, marked truncated', () => {
  // Incompressible text: random bytes in base64, 100 KB a message (about 75 KB gzipped).
  const noise = () => randomBytes(75_000).toString('base64');
  const messages = Array.from({ length: 12 }, (_, i) => ({ role: 'user', content: `${i}:${noise()}` }));
  const body = encodeContent(content(messages))!;
  expect(body.length).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
  const kept = JSON.parse(gunzipSync(body).toString()) as RequestContent;
  expect(kept.truncated).toBe(true);
  expect(kept.messages.length).toBeLessThan(12);
  // The newest message is always among those kept.
  expect((kept.messages.at(-1) as { content: string }).content.startsWith('11:')).toBe(true);
});
