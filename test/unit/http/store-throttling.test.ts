import type { APIGatewayProxyResult } from 'aws-lambda';
import { defineHandler } from '../../../lambdas/http/define-handler.js';
import { DynamoDbError, isThrottling, TransactionCanceledError } from '../../../lambdas/store/dynamodb-client.js';
import { lambdaContext, publicGetEvent } from '../../support/lambda-invocation.js';

/**
 * DynamoDB throttling the gateway's own store (after the client's retries) is not the caller's
 * fault and not a bug: the response writer answers 503 SERVICE_UNAVAILABLE with Retry-After,
 * where any other unexpected error stays a 500.
 */

const event = publicGetEvent;
const context = lambdaContext();

async function answerTo(error: Error): Promise<APIGatewayProxyResult> {
  const handler = defineHandler('openapi-get', {
    handle: async () => {
      throw error;
    },
  });
  return (await handler(event, context)) as APIGatewayProxyResult;
}

const throttled = new DynamoDbError('ProvisionedThroughputExceededException', 'Throughput exceeds…', 400);
const cancelled = (code: string) =>
  new TransactionCanceledError('Transaction cancelled', 400, [{ Code: 'None' }, { Code: code }]);

test('throttling is told from other DynamoDB errors', () => {
  expect(isThrottling(throttled)).toBe(true);
  expect(isThrottling(new DynamoDbError('ThrottlingException', 'Rate exceeded', 400))).toBe(true);
  expect(isThrottling(cancelled('ThrottlingError'))).toBe(true);
  expect(isThrottling(cancelled('ConditionalCheckFailed'))).toBe(false);
  expect(isThrottling(new DynamoDbError('ValidationException', 'bad', 400))).toBe(false);
  expect(isThrottling(new Error('ProvisionedThroughputExceededException'))).toBe(false);
});

test.each([
  ['a throttled call', throttled],
  ['a transaction cancelled for throttling', cancelled('ThrottlingError')],
])('%s is a 503 SERVICE_UNAVAILABLE with Retry-After', async (_name, error) => {
  const answer = await answerTo(error);
  expect(answer.statusCode).toBe(503);
  expect(answer.headers?.['Retry-After']).toBe('1');
  expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } });
});

test('any other unexpected error is still a 500 without details', async () => {
  const answer = await answerTo(new DynamoDbError('ValidationException', 'secret detail', 400));
  expect(answer.statusCode).toBe(500);
  expect(answer.body).not.toContain('secret detail');
});
