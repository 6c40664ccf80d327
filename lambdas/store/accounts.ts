import { randomUUID } from 'node:crypto';
import { dynamo, fromItem, isConditionFailure, tableName, toItem } from './dynamo.js';
import { DomainError, type ErrorAnswers } from '../errors/domain-error.js';

export interface Account {
  readonly accountId: string;
  readonly email: string;
  readonly name: string;
  readonly createdAt: string;
}

const accountKey = (accountId: string) => toItem({ pk: `ACCOUNT#${accountId}`, sk: 'PROFILE' });
const emailKey = (email: string) => toItem({ pk: `EMAIL#${email.toLowerCase()}`, sk: 'EMAIL' });

/** How HTTP answers an email another account already has. */
export const EMAIL_TAKEN_ANSWERS: ErrorAnswers<'email_taken'> = {
  email_taken: {
    status: 409,
    code: 'CONFLICT',
    message: 'email: an account with this email already exists',
    field: 'email',
  },
};

export class EmailTakenError extends DomainError<'email_taken'> {
  readonly answers = EMAIL_TAKEN_ANSWERS;

  constructor() {
    super('email_taken', 'email taken', {});
    this.name = 'EmailTakenError';
  }
}

/**
 * Creates an account. The e-mail claim is written first with a condition, so two concurrent
 * sign-ups for one address cannot both succeed (no transactions: they are not on every
 * embedded DynamoDB).
 */
export async function createAccount(email: string, name: string, now = new Date()): Promise<Account> {
  const account: Account = {
    accountId: `acc_${randomUUID().replaceAll('-', '')}`,
    email,
    name,
    createdAt: now.toISOString(),
  };
  try {
    await dynamo().putItem({
      TableName: tableName('identity'),
      Item: { ...emailKey(email), ...toItem({ accountId: account.accountId }) },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  } catch (error) {
    if (isConditionFailure(error)) throw new EmailTakenError();
    throw error;
  }
  await dynamo().putItem({
    TableName: tableName('identity'),
    Item: { ...accountKey(account.accountId), ...toItem({ ...account }) },
  });
  return account;
}

/** Undoes `createAccount` when a later provisioning step fails. */
export async function deleteAccount(account: Account): Promise<void> {
  await dynamo().deleteItem({ TableName: tableName('identity'), Key: accountKey(account.accountId) });
  await dynamo().deleteItem({ TableName: tableName('identity'), Key: emailKey(account.email) });
}

export async function getAccount(accountId: string): Promise<Account | undefined> {
  const { Item } = await dynamo().getItem({ TableName: tableName('identity'), Key: accountKey(accountId) });
  if (!Item) return undefined;
  const { accountId: id, email, name, createdAt } = fromItem<Account>(Item);
  return { accountId: id, email, name, createdAt };
}

export async function getAccountIdByEmail(email: string): Promise<string | undefined> {
  const { Item } = await dynamo().getItem({ TableName: tableName('identity'), Key: emailKey(email) });
  return Item ? fromItem<{ accountId: string }>(Item).accountId : undefined;
}
