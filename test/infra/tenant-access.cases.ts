import { SESSION_TASK_GRANTS } from '../../lib/constructs/session-runner.js';
import type { Grant } from '../../lib/routes.js';
import {
  actionsOf,
  build,
  flatten,
  logicalIdOf,
  manifestRoutes,
  resourcesOf,
  roleLogicalId,
  roleStatements,
  PROVIDER_KEY_SECRETS_ARN,
  REGION,
  type Built,
} from './support.js';

/**
 * The tenant-access role (docs/deployment.md, "Isolation by IAM"): who may assume it and how,
 * what its sessions may read, and that the functions reading under it lost those reads.
 * Written out here independently of lib/tenant-access-policy.ts.
 */
const TENANT_GRANTS: readonly Grant[] = ['providerKeys:read', 'usage:readOwn', 'arenaSessions:readOwn'];
const ACCOUNT = '${aws:PrincipalTag/account}';

describe('the tenant-access role', () => {
  let built: Built;
  let roleId: string;
  let role: { Properties: Record<string, any> };
  beforeAll(() => {
    built = build({ routes: manifestRoutes });
    roleId = logicalIdOf(built.stack.tenantAccess.role);
    role = built.template.toJSON().Resources[roleId];
  });
  const tableArn = (name: 'usage' | 'jobs') => ({
    'Fn::GetAtt': [logicalIdOf(built.stack.tables.get(name).table), 'Arn'],
  });

  test('its trust: exactly the functions that open tenant sessions, with the account tag alone, nothing transitive', () => {
    const [statement, ...others] = role.Properties['AssumeRolePolicyDocument'].Statement;
    expect(others).toEqual([]);
    expect(statement.Effect).toBe('Allow');
    expect([statement.Action].flat().sort()).toEqual(['sts:AssumeRole', 'sts:TagSession']);
    expect(statement.Condition).toEqual({
      StringLike: { 'aws:RequestTag/account': '?*' },
      'ForAllValues:StringEquals': { 'aws:TagKeys': ['account'] },
      Null: { 'sts:TransitiveTagKeys': 'true' },
    });
    const trusted = [statement.Principal.AWS]
      .flat()
      .map((arn: { 'Fn::GetAtt': [string, string] }) => arn['Fn::GetAtt'][0]);
    const expected = manifestRoutes
      .filter((route) => route.grants.some((grant) => TENANT_GRANTS.includes(grant)))
      .map((route) => roleLogicalId(built.stack, route.id));
    // The session runner plays sessions with the callers' own keys.
    expect(SESSION_TASK_GRANTS).toContain('providerKeys:read');
    expected.push(logicalIdOf(built.stack.sessionRunner.run.role));
    expect(trusted.sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThanOrEqual(10);
    // IAM's default trust policy limit is 2,048 characters (without whitespace); a role ARN resolves
    // to at most 95 (a 64-character name), so the trust stays under it with room to spare.
    expect(JSON.stringify(statement).length + expected.length * 95).toBeLessThan(2048);
  });

  test('its sessions last at most an hour (the functions ask for 15 minutes)', () => {
    expect(role.Properties['MaxSessionDuration']).toBe(3600);
  });

  test("its policy: provider keys by the account tag, the account's own partitions, the key only through the services", () => {
    const statements = roleStatements(built.template, roleId);
    const keyId = logicalIdOf(built.stack.encryptionKey);
    expect(
      statements.map((s) => ({
        actions: actionsOf(s).sort(),
        resources: resourcesOf(s).map((r) => (JSON.stringify(r).includes(keyId) ? 'key' : r)),
        condition: s.Condition,
      })),
    ).toEqual([
      {
        actions: ['secretsmanager:GetSecretValue'],
        resources: [expect.anything()],
        condition: { StringEquals: { 'secretsmanager:ResourceTag/gateway:account': ACCOUNT } },
      },
      {
        actions: ['dynamodb:Query'],
        resources: [tableArn('usage')],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`ACCOUNT#${ACCOUNT}#*`] } },
      },
      {
        actions: ['dynamodb:GetItem', 'dynamodb:Query'],
        resources: [tableArn('jobs')],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`ACCOUNT#${ACCOUNT}`] } },
      },
      {
        actions: ['kms:Decrypt'],
        resources: ['key'],
        condition: { StringEquals: { 'kms:ViaService': `secretsmanager.${REGION}.amazonaws.com` } },
      },
      {
        actions: ['kms:Decrypt', 'kms:DescribeKey'],
        resources: ['key'],
        condition: { StringEquals: { 'kms:ViaService': `dynamodb.${REGION}.amazonaws.com` } },
      },
    ]);
    expect(flatten(resourcesOf(statements[0]!)[0])).toBe(PROVIDER_KEY_SECRETS_ARN);
  });

  test('the functions reading under it lost those reads on their own roles', () => {
    const statementsOf = (id: string) => roleStatements(built.template, roleLogicalId(built.stack, id));
    const onTable = (id: string, table: 'usage' | 'jobs') =>
      statementsOf(id).filter((s) =>
        JSON.stringify(resourcesOf(s)).includes(logicalIdOf(built.stack.tables.get(table).table)),
      );
    // The usage route reads no usage with its own role; the admin's route still reads any account's.
    expect(onTable('usage-get', 'usage')).toEqual([]);
    expect(onTable('admin-usage-get', 'usage').flatMap(actionsOf)).toContain('dynamodb:Query');
    // The session list and leaderboard read no item of the jobs table with their own roles.
    expect(onTable('sessions-list', 'jobs')).toEqual([]);
    expect(onTable('arena-leaderboard', 'jobs').flatMap(actionsOf).sort()).toEqual([
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    // No function holds GetSecretValue on provider-key secrets.
    for (const route of manifestRoutes) {
      const reads = statementsOf(route.id).filter(
        (s) =>
          actionsOf(s).includes('secretsmanager:GetSecretValue') &&
          resourcesOf(s).some((r) => flatten(r) === PROVIDER_KEY_SECRETS_ARN),
      );
      expect([route.id, reads]).toEqual([route.id, []]);
    }
  });

  test("the session log and job records: their own key families only, never an account's items", () => {
    const keyed = (id: string) =>
      roleStatements(built.template, roleLogicalId(built.stack, id))
        .filter((s) => JSON.stringify(resourcesOf(s)).includes(logicalIdOf(built.stack.tables.get('jobs').table)))
        .filter((s) => actionsOf(s).some((a) => a === 'dynamodb:GetItem' || a === 'dynamodb:Query'))
        .map((s) => ({ actions: actionsOf(s).sort(), condition: s.Condition }));
    expect(keyed('sessions-events')).toEqual([
      {
        actions: ['dynamodb:GetItem', 'dynamodb:Query'],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ARENA_SESSION#*'] } },
      },
    ]);
    expect(keyed('fashion-status')).toEqual([
      {
        actions: ['dynamodb:GetItem'],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['JOB#*'] } },
      },
    ]);
  });
});
