import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { logger } from '../config/logger.js';
import { answerAccountRoleEvent } from '../deployment/account-role-resource.js';
import { sdkApiGatewayAccount } from '../deployment/api-gateway-account.js';
import { putResponse } from '../deployment/cloudformation-response.js';

const account = sdkApiGatewayAccount(new APIGatewayClient({}));

/**
 * CloudFormation's `Custom::ApiGatewayAccountRole` (not an API route): sets the account's API
 * Gateway CloudWatch role to the stack's only when the account has none.
 */
export async function handler(event: CloudFormationCustomResourceEvent, context: Context): Promise<void> {
  const result = await answerAccountRoleEvent(event, {
    account,
    remainingMs: () => context.getRemainingTimeInMillis(),
    respond: putResponse,
  });
  const fields = { requestType: event.RequestType, logicalResourceId: event.LogicalResourceId };
  if (result.status === 'SUCCESS') logger.info('API Gateway account role', { ...fields, ...result.data });
  else logger.error('API Gateway account role failed', { ...fields, reason: result.reason });
}
