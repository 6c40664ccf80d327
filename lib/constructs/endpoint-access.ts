import { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { ENV } from '../../lambdas/config/environment.js';
import type { TableName } from '../../lambdas/store/table-schema.js';
import type { Grant } from '../routes.js';
import type { DashboardUserPool } from './user-pool.js';
import type { GatewaySecrets } from './secrets.js';
import type { Tables } from './tables.js';

export interface EndpointResources {
  readonly encryptionKey: IKey;
  readonly tables: Tables;
  readonly secrets: GatewaySecrets;
  readonly dashboard: DashboardUserPool;
}

/** What one function may do, and the environment that tells it where those resources are. */
export interface EndpointAccess {
  readonly statements: PolicyStatement[];
  readonly environment: Record<string, string>;
}

type TableAccess = 'read' | 'write' | 'readWrite';

const TABLE_ACTIONS: Record<TableAccess, readonly string[]> = {
  read: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
  write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  readWrite: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
};

/**
 * Every grant the manifest can name. A Record (not a switch) so that adding a grant to the
 * manifest's type without deciding its permissions fails to compile.
 */
const GRANTS: Record<Grant, (acc: Accumulator) => void> = {
  'identity:read': (acc) => acc.table('identity', TABLE_ACTIONS.read, true),
  'identity:write': (acc) => acc.table('identity', TABLE_ACTIONS.write, false),
  'usage:read': (acc) => acc.table('usage', TABLE_ACTIONS.read, true),
  // The usage ledger is append-only (idempotent puts keyed by request id, counter updates): no deletes.
  'usage:write': (acc) => acc.table('usage', ['dynamodb:PutItem', 'dynamodb:UpdateItem'], false),
  'cache:write': (acc) => acc.table('cache', TABLE_ACTIONS.readWrite, false),
  'adminToken:read': (acc) => acc.secret(ENV.adminTokenSecretId, 'adminToken'),
  'platformKeys:read': (acc) => acc.secret(ENV.platformKeysSecretId, 'platformKeys'),
  'userPool:login': (acc) => acc.userPool(['cognito-idp:InitiateAuth']),
  'userPool:admin': (acc) => acc.userPool(
    ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminSetUserPassword', 'cognito-idp:AdminGetUser']),
};

/** Turns a route's grants into least-privilege statements (no wildcard resources) and env vars. */
export function endpointAccess(grants: readonly Grant[], resources: EndpointResources): EndpointAccess {
  const acc = new Accumulator(resources);
  for (const grant of new Set(grants)) GRANTS[grant](acc);
  return acc.build();
}

class Accumulator {
  private readonly tableActions = new Map<TableName, Set<string>>();
  private readonly indexQueries = new Set<TableName>();
  private readonly secretArns = new Set<string>();
  private readonly cognitoActions = new Set<string>();
  private tableWrites = false;
  private readonly environment: Record<string, string> = {};

  constructor(private readonly resources: EndpointResources) {}

  table(name: TableName, actions: readonly string[], queriesIndexes: boolean): void {
    const { schema, table } = this.resources.tables.get(name);
    const set = this.tableActions.get(name) ?? new Set<string>();
    actions.forEach((action) => set.add(action));
    this.tableActions.set(name, set);
    if (queriesIndexes && schema.indexes.length > 0) this.indexQueries.add(name);
    if (actions.some((action) => !TABLE_ACTIONS.read.includes(action))) this.tableWrites = true;
    this.environment[schema.envVar] = table.tableName;
  }

  secret(envVar: string, which: 'adminToken' | 'platformKeys'): void {
    const secret = this.resources.secrets[which];
    this.secretArns.add(secret.secretArn);
    this.environment[envVar] = secret.secretArn;
  }

  userPool(actions: readonly string[]): void {
    actions.forEach((action) => this.cognitoActions.add(action));
    const { userPool, client } = this.resources.dashboard;
    this.environment[ENV.userPoolId] = userPool.userPoolId;
    this.environment[ENV.userPoolClientId] = client.userPoolClientId;
  }

  build(): EndpointAccess {
    const statements: PolicyStatement[] = [];
    const keyArn = this.resources.encryptionKey.keyArn;
    const region = Stack.of(this.resources.tables).region;

    for (const [name, actions] of this.tableActions) {
      const { table } = this.resources.tables.get(name);
      statements.push(new PolicyStatement({ actions: [...actions].sort(), resources: [table.tableArn] }));
      if (this.indexQueries.has(name)) {
        const indexArns = this.resources.tables.get(name).schema.indexes
          .map((index) => `${table.tableArn}/index/${index.name}`);
        statements.push(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexArns }));
      }
    }
    if (this.tableActions.size > 0) {
      // DynamoDB uses the table key on the caller's behalf; the condition keeps the key usable only that way.
      const keyActions = this.tableWrites
        ? ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey']
        : ['kms:Decrypt', 'kms:DescribeKey'];
      statements.push(new PolicyStatement({
        actions: keyActions,
        resources: [keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${region}.amazonaws.com` } },
      }));
    }
    if (this.secretArns.size > 0) {
      statements.push(new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [...this.secretArns],
      }));
      statements.push(new PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${region}.amazonaws.com` } },
      }));
    }
    if (this.cognitoActions.size > 0) {
      statements.push(new PolicyStatement({
        actions: [...this.cognitoActions].sort(),
        resources: [this.resources.dashboard.userPool.userPoolArn],
      }));
    }
    return { statements, environment: { ...this.environment } };
  }
}
