import { tableSchemas, type TableName } from '../../lambdas/store/table-schema.js';
import type { Grant, RouteSpec } from '../../lib/routes.js';
import {
  actionsOf, build, manifestRoutes, syntheticRoute, logicalIdOf, refersTo, resourcesOf, roleLogicalId, roleStatements, statementsOn,
  type Built, type Statement,
} from './support.js';

// The permissions each grant should give, written out independently of lib/constructs.
const READ = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'];
const TABLE_ACTIONS: Partial<Record<Grant, [TableName, string[]]>> = {
  'identity:read': ['identity', READ],
  'identity:write': ['identity', ['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']],
  'usage:read': ['usage', READ],
  'usage:write': ['usage', ['dynamodb:PutItem', 'dynamodb:UpdateItem']],
  'cache:write': ['cache', ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']],
};
const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

// A Record so that a grant added to the manifest's type without a test here fails to compile.
const EVERY_GRANT: Record<Grant, true> = {
  'identity:read': true, 'identity:write': true, 'usage:read': true, 'usage:write': true, 'cache:write': true,
  'adminToken:read': true, 'platformKeys:read': true, 'userPool:login': true, 'userPool:admin': true,
};
// One synthetic route per grant, so grants the manifest does not use yet are covered too.
const singleGrantRoutes: RouteSpec[] = (Object.keys(EVERY_GRANT) as Grant[]).map((grant) =>
  syntheticRoute({ id: `only-${grant.replace(':', '-')}`, path: `/test/${grant.replace(':', '/')}`, grants: [grant] }));

function expectedTableActions(route: RouteSpec, table: TableName): string[] {
  const actions = route.grants.flatMap((grant) => {
    const entry = TABLE_ACTIONS[grant];
    return entry && entry[0] === table ? entry[1] : [];
  });
  return [...new Set(actions)].sort();
}

/** Actions allowed on exactly the table ARN (not its indexes). */
function actionsOnTable(statements: Statement[], tableId: string): string[] {
  const exact = JSON.stringify({ 'Fn::GetAtt': [tableId, 'Arn'] });
  const onTable = statements.filter((s) => resourcesOf(s).some((r) => JSON.stringify(r) === exact));
  return [...new Set(onTable.flatMap(actionsOf))].sort();
}

function allIamStatements(built: Built): Statement[] {
  const resources = built.template.toJSON().Resources as Record<string, { Type: string; Properties: any }>;
  return Object.values(resources).flatMap((resource) => {
    if (resource.Type === 'AWS::IAM::Policy') return resource.Properties.PolicyDocument.Statement;
    if (resource.Type === 'AWS::IAM::Role') {
      return (resource.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement);
    }
    return [];
  });
}

describe.each([
  ['the manifest', manifestRoutes],
  ['one route per grant', singleGrantRoutes],
])('least privilege per function: %s', (_name, routes) => {
  let built: Built;
  beforeAll(() => {
    built = build({ routes });
  });

  const tableId = (name: TableName) => logicalIdOf(built.stack.tables.get(name).table);

  test.each(routes.map((route) => [route.id, route]))('%s: table actions are exactly what its grants name', (_id, route) => {
    const statements = roleStatements(built.template, roleLogicalId(built.stack, route.id));
    for (const schema of tableSchemas) {
      expect([schema.name, actionsOnTable(statements, tableId(schema.name))])
        .toEqual([schema.name, expectedTableActions(route, schema.name)]);
      const onIndexes = statementsOn(statements, tableId(schema.name))
        .filter((s) => JSON.stringify(s.Resource).includes('/index/'));
      const readsIndexes = schema.indexes.length > 0 && expectedTableActions(route, schema.name).includes('dynamodb:Query');
      expect([schema.name, onIndexes.flatMap(actionsOf)]).toEqual([schema.name, readsIndexes ? ['dynamodb:Query'] : []]);
      for (const statement of onIndexes) {
        expect(JSON.stringify(statement.Resource)).not.toContain('*');
      }
    }
  });

  test('a function without identity:write cannot write the identity table', () => {
    const readers = routes.filter((r) => !r.grants.includes('identity:write'));
    for (const route of readers) {
      const actions = actionsOnTable(roleStatements(built.template, roleLogicalId(built.stack, route.id)), tableId('identity'));
      expect(actions).not.toEqual(expect.arrayContaining(['dynamodb:PutItem']));
      expect(actions.filter((a) => /Put|Update|Delete|Write/.test(a))).toEqual([]);
    }
  });

  test.each(routes.map((route) => [route.id, route]))('%s: secrets, user pool and key access follow its grants', (_id, route) => {
    const statements = roleStatements(built.template, roleLogicalId(built.stack, route.id));
    const has = (grant: Grant) => route.grants.includes(grant);

    const secretReads = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('secretsmanager:')));
    const secretIds = secretReads.flatMap(resourcesOf);
    expect(secretReads.flatMap(actionsOf).every((a) => a === 'secretsmanager:GetSecretValue')).toBe(true);
    expect(secretIds.some((r) => refersTo(r, logicalIdOf(built.stack.secrets.adminToken)))).toBe(has('adminToken:read'));
    expect(secretIds.some((r) => refersTo(r, logicalIdOf(built.stack.secrets.platformKeys)))).toBe(has('platformKeys:read'));

    const cognito = [...new Set(statements.flatMap(actionsOf).filter((a) => a.startsWith('cognito-idp:')))].sort();
    expect(cognito).toEqual([
      ...(has('userPool:admin') ? ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminGetUser', 'cognito-idp:AdminSetUserPassword'] : []),
      ...(has('userPool:login') ? ['cognito-idp:InitiateAuth'] : []),
    ].sort());
    for (const statement of statements.filter((s) => actionsOf(s).some((a) => a.startsWith('cognito-idp:')))) {
      expect(resourcesOf(statement)).toEqual([{ 'Fn::GetAtt': [logicalIdOf(built.stack.dashboard.userPool), 'Arn'] }]);
    }

    // The key is only usable through DynamoDB or Secrets Manager, never directly.
    const keyStatements = statementsOn(statements, logicalIdOf(built.stack.encryptionKey));
    for (const statement of keyStatements) {
      expect(JSON.stringify(statement.Condition)).toMatch(/kms:ViaService/);
    }
    const writesTables = route.grants.some((g) => /:write$/.test(g));
    const encrypts = keyStatements.flatMap(actionsOf).includes('kms:Encrypt');
    expect(encrypts).toBe(writesTables);
  });

  test('no statement anywhere allows Resource "*" except X-Ray trace writes', () => {
    const wildcard = allIamStatements(built).filter((s) => resourcesOf(s).includes('*'));
    expect(wildcard.length).toBeGreaterThan(0);
    for (const statement of wildcard) {
      expect(actionsOf(statement).sort()).toEqual(XRAY);
    }
  });

  test('no statement uses wildcard actions or wildcard resource ARNs', () => {
    for (const statement of allIamStatements(built)) {
      expect(actionsOf(statement).filter((a) => a.includes('*'))).toEqual([]);
      const patterns = resourcesOf(statement).filter((r) => r !== '*' && JSON.stringify(r).includes('*'));
      expect(patterns).toEqual([]);
    }
  });
});
