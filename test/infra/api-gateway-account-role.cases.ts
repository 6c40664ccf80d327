import { AwsSolutionsChecks } from 'cdk-nag';
import { actionsOf, build, logicalIdOf, REGION, resourcesOf, roleStatements, type Built } from './support.js';

/**
 * API Gateway's execution log group and the account-wide CloudWatch role its stage logging needs.
 * The account setting is shared by every API in the account and region: by default the stack sets
 * its own role only where none is set (a custom resource), never replacing another team's.
 */

type Resources = Record<
  string,
  {
    Type: string;
    Properties: Record<string, any>;
    DependsOn?: string[];
    DeletionPolicy?: string;
    UpdateReplacePolicy?: string;
  }
>;

const PUSH_POLICY = 'service-role/AmazonAPIGatewayPushToCloudWatchLogs';
const ACCOUNT_SETTINGS_ARN = `arn:aws:apigateway:${REGION}::/account`;

function resourcesOfType(built: Built, type: string): [string, Resources[string]][] {
  return Object.entries(built.template.toJSON().Resources as Resources).filter(
    ([, resource]) => resource.Type === type,
  );
}

function stageOf(built: Built): Resources[string] {
  const stages = resourcesOfType(built, 'AWS::ApiGateway::Stage');
  expect(stages).toHaveLength(1);
  return stages[0]![1];
}

/**
 * Roles API Gateway itself may assume for the account setting: the CloudWatch logging role, not
 * the invoke role its integrations call the functions with (lib/constructs/public-api.ts).
 */
function apiGatewayRoles(built: Built): [string, Resources[string]][] {
  const invokeRole = logicalIdOf(built.stack.api.invokeRole);
  return resourcesOfType(built, 'AWS::IAM::Role').filter(
    ([id, role]) =>
      id !== invokeRole &&
      JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('apigateway.amazonaws.com'),
  );
}

describe.each(['ifUnset', 'set', 'leave'] as const)('apiGatewayAccountRole %s', (mode) => {
  let built: Built;
  beforeAll(() => {
    built = build({ apiGatewayAccountRole: mode, stageName: 'live' });
  });

  test('the execution log group is the stack own, with a retention, and the stage waits for it', () => {
    const executionLogs = logicalIdOf(built.stack.api.executionLogs);
    const group = built.template.toJSON().Resources[executionLogs];
    expect(group.Properties.LogGroupName).toEqual({
      'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: logicalIdOf(built.stack.api.api) }, '/live']],
    });
    expect(group.Properties.RetentionInDays).toBe(90);
    expect(stageOf(built).DependsOn).toContain(executionLogs);
  });

  test('the stage logs errors, never data', () => {
    expect(stageOf(built).Properties.MethodSettings).toEqual([
      expect.objectContaining({ LoggingLevel: 'ERROR', DataTraceEnabled: false }),
    ]);
  });

  test('cdk-nag finds nothing unacknowledged', () => {
    expect(() => built.app.synth()).not.toThrow();
    expect(new AwsSolutionsChecks().validateScope(built.stack).violations).toEqual([]);
  });

  test('the account setting is written only as the mode says', () => {
    const accounts = resourcesOfType(built, 'AWS::ApiGateway::Account');
    const claims = resourcesOfType(built, 'Custom::ApiGatewayAccountRole');
    const roles = apiGatewayRoles(built);
    expect([accounts.length, claims.length, roles.length]).toEqual(
      { ifUnset: [0, 1, 1], set: [1, 0, 1], leave: [0, 0, 0] }[mode],
    );
    for (const [, role] of roles) {
      expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toContain(PUSH_POLICY);
    }
  });
});

describe('ifUnset (the default)', () => {
  let built: Built;
  let resources: Resources;
  beforeAll(() => {
    built = build();
    resources = built.template.toJSON().Resources as Resources;
  });

  test("never writes the account setting itself: no AWS::ApiGateway::Account overwriting another team's role", () => {
    expect(resourcesOfType(built, 'AWS::ApiGateway::Account')).toEqual([]);
  });

  test('the custom resource gets the stack role from its own function, and the stage waits for it', () => {
    const claim = built.stack.api.accountRoleClaim!;
    const claims = resourcesOfType(built, 'Custom::ApiGatewayAccountRole');
    expect(claims).toHaveLength(1);
    const [claimId, resource] = claims[0]!;
    expect(resource.Properties).toEqual({
      ServiceToken: { 'Fn::GetAtt': [logicalIdOf(claim.handler.fn), 'Arn'] },
      ServiceTimeout: '240',
      RoleArn: { 'Fn::GetAtt': [logicalIdOf(claim.role), 'Arn'] },
    });
    expect(stageOf(built).DependsOn).toContain(claimId);
  });

  test('the function is one of the stack own: Node.js 24 on arm64, its log group, its role (bundled: bundling.test.ts)', () => {
    const fn = resources[logicalIdOf(built.stack.api.accountRoleClaim!.handler.fn)]!;
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: 120,
      Role: { 'Fn::GetAtt': [logicalIdOf(built.stack.api.accountRoleClaim!.handler.role), 'Arn'] },
    });
    expect(resources[fn.Properties.LoggingConfig.LogGroup.Ref]!.Properties.RetentionInDays).toBeGreaterThan(0);
  });

  test('the function may read and patch the account setting and pass only the stack role, only to API Gateway', () => {
    const claim = built.stack.api.accountRoleClaim!;
    const statements = roleStatements(built.template, logicalIdOf(claim.handler.role)).filter(
      (statement) => !actionsOf(statement).some((action) => /^(logs|xray):/.test(action)),
    );
    expect(statements.map((s) => [actionsOf(s).sort(), resourcesOf(s), s.Condition])).toEqual([
      [['apigateway:GET', 'apigateway:PATCH'], [ACCOUNT_SETTINGS_ARN], undefined],
      [
        ['iam:PassRole'],
        [{ 'Fn::GetAtt': [logicalIdOf(claim.role), 'Arn'] }],
        { StringEquals: { 'iam:PassedToService': 'apigateway.amazonaws.com' } },
      ],
    ]);
  });

  test('the role is kept on every delete, a failed create included: the account setting may name it', () => {
    const role = built.template.toJSON().Resources[logicalIdOf(built.stack.api.accountRoleClaim!.role)];
    expect([role.DeletionPolicy, role.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
  });
});

test('set: the account setting is written unconditionally, the stage waits for it, and its role is kept', () => {
  const built = build({ apiGatewayAccountRole: 'set' });
  const accounts = resourcesOfType(built, 'AWS::ApiGateway::Account');
  const roles = apiGatewayRoles(built);
  expect([accounts.length, roles.length]).toEqual([1, 1]);
  const [accountId, account] = accounts[0]!;
  const [roleId, role] = roles[0]!;
  expect(account.Properties.CloudWatchRoleArn).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
  expect([role.DeletionPolicy, role.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
  expect(stageOf(built).DependsOn).toContain(accountId);
});
