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
const TENANT_GRANTS: readonly Grant[] = [
  'providerKeys:read',
  'usage:readOwn',
  'requestLog:readOwn',
  'requestContent:readOwn',
  'arenaSessions:readOwn',
  'jobs:readOwn',
  'responses:readOwn',
];
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

  test('its trust: this account, roles carrying the stack’s reader tag, the account tag alone, nothing transitive', () => {
    const [statement, ...others] = role.Properties['AssumeRolePolicyDocument'].Statement;
    expect(others).toEqual([]);
    expect(statement.Effect).toBe('Allow');
    expect([statement.Action].flat().sort()).toEqual(['sts:AssumeRole', 'sts:TagSession']);
    expect(flatten(statement.Principal.AWS)).toBe('arn:aws:iam::<AWS::AccountId>:root');
    expect(statement.Condition).toEqual({
      StringEquals: { 'aws:PrincipalTag/gateway:tenant-reader': { Ref: 'AWS::StackId' } },
      StringLike: { 'aws:RequestTag/account': '?*' },
      'ForAllValues:StringEquals': { 'aws:TagKeys': ['account'] },
      Null: { 'sts:TransitiveTagKeys': 'true' },
    });
    // A fixed size, however many functions read under tenant sessions (IAM's default limit: 2,048).
    expect(JSON.stringify(statement).length).toBeLessThan(600);
  });

  test('the reader tag and the assume grant: exactly the functions that open tenant sessions', () => {
    const resources = built.template.toJSON().Resources as Record<string, { Type: string; Properties: any }>;
    const tagged = Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::IAM::Role')
      .filter(([, r]) =>
        (r.Properties.Tags ?? []).some(
          (tag: { Key: string; Value: unknown }) =>
            tag.Key === 'gateway:tenant-reader' &&
            JSON.stringify(tag.Value) === JSON.stringify({ Ref: 'AWS::StackId' }),
        ),
      )
      .map(([id]) => id);
    const expected = manifestRoutes
      .filter((route) => route.grants.some((grant) => TENANT_GRANTS.includes(grant)))
      .map((route) => roleLogicalId(built.stack, route.id));
    // The session runner plays sessions with the callers' own keys.
    expect(SESSION_TASK_GRANTS).toContain('providerKeys:read');
    expected.push(logicalIdOf(built.stack.sessionRunner.run.role));
    expect(tagged.sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThanOrEqual(10);
    // Only they may ask STS for it: the assume grant in their own policies, on this role alone.
    const assuming = Object.keys(resources)
      .filter((id) => resources[id]!.Type === 'AWS::IAM::Role')
      .filter((id) => roleStatements(built.template, id).some((s) => actionsOf(s).includes('sts:AssumeRole')))
      .filter((id) => id !== roleId);
    expect(assuming.sort()).toEqual(expected.sort());
    for (const id of assuming) {
      const grants = roleStatements(built.template, id).filter((s) => actionsOf(s).includes('sts:AssumeRole'));
      expect(grants.map((s) => [actionsOf(s).sort(), resourcesOf(s).map(flatten)])).toEqual([
        [['sts:AssumeRole', 'sts:TagSession'], ['arn:aws:iam::<AWS::AccountId>:role/Gateway-TenantAccess']],
      ]);
    }
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
        condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`ACCOUNT#${ACCOUNT}`, `ACCOUNT#${ACCOUNT}#*`] },
        },
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

  test('session logs and job records: the routes read them only under tenant sessions, the background tasks by key family', () => {
    const jobsTable = logicalIdOf(built.stack.tables.get('jobs').table);
    const reads = (roleId: string) =>
      roleStatements(built.template, roleId)
        .filter((s) => JSON.stringify(resourcesOf(s)).includes(jobsTable))
        .filter((s) => actionsOf(s).some((a) => a === 'dynamodb:GetItem' || a === 'dynamodb:Query'))
        .map((s) => ({ actions: actionsOf(s).sort(), condition: s.Condition }));
    // The caller-facing routes: no read of the jobs table on their own roles.
    for (const id of [
      'sessions-events',
      'sessions-get',
      'sessions-cancel',
      'fashion-status',
      'fashion-subscribe',
      'media-video-status',
      'responses-create',
      'responses-get',
      'responses-delete',
    ]) {
      expect([id, reads(roleLogicalId(built.stack, id))]).toEqual([id, []]);
    }
    // The runner reads session logs of any account (it acts for none), and nothing else.
    expect(reads(logicalIdOf(built.stack.sessionRunner.run.role))).toEqual([
      {
        actions: ['dynamodb:GetItem', 'dynamodb:Query'],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#*#ARENA_SESSION#*'] } },
      },
    ]);
    // Every role reading the table by key family reads one of three families: a tenant session's
    // own partitions, the runner's session logs, the job tasks' job records (by GetItem alone).
    const families = Object.entries(built.template.toJSON().Resources as Record<string, { Type: string }>)
      .filter(([, resource]) => resource.Type === 'AWS::IAM::Role')
      .flatMap(([id]) => reads(id))
      .filter((read) => read.condition !== undefined)
      .map((read) => ({
        reads: read.actions.filter((a) => a === 'dynamodb:GetItem' || a === 'dynamodb:Query'),
        keys: (read.condition as Record<string, Record<string, string[]>>)['ForAllValues:StringLike']![
          'dynamodb:LeadingKeys'
        ],
      }));
    expect(families.length).toBeGreaterThanOrEqual(4);
    for (const family of families) {
      expect([
        { reads: ['dynamodb:GetItem', 'dynamodb:Query'], keys: [`ACCOUNT#${ACCOUNT}`, `ACCOUNT#${ACCOUNT}#*`] },
        { reads: ['dynamodb:GetItem', 'dynamodb:Query'], keys: ['ACCOUNT#*#ARENA_SESSION#*'] },
        { reads: ['dynamodb:GetItem'], keys: ['ACCOUNT#*#JOB#*'] },
      ]).toContainEqual(family);
    }
  });
});
