import { GetAccountCommand, UpdateAccountCommand, type APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { ApiGatewayAccount } from './account-role.js';

/** The account's API Gateway settings through the SDK: GetAccount, and UpdateAccount's one patch. */
export function sdkApiGatewayAccount(client: APIGatewayClient): ApiGatewayAccount {
  return {
    async cloudWatchRoleArn(signal) {
      const account = await client.send(new GetAccountCommand({}), { abortSignal: signal });
      // An account that never had one answers no field; one whose role was cleared, an empty string.
      return account.cloudwatchRoleArn ? account.cloudwatchRoleArn : undefined;
    },
    async setCloudWatchRoleArn(roleArn, signal) {
      await client.send(
        new UpdateAccountCommand({ patchOperations: [{ op: 'replace', path: '/cloudwatchRoleArn', value: roleArn }] }),
        { abortSignal: signal },
      );
    },
  };
}
