import { build, logicalIdOf } from './support.js';

/**
 * A first create that fails must leave nothing behind, or the retry meets its own orphans
 * ("already exists"): what the stack keeps on delete is kept only once created, and what has a
 * name fixed at synth is not kept at all unless it must be.
 */
const { stack, template } = build();
const resources = Object.entries(template.toJSON().Resources as Record<string, Record<string, unknown>>);

/**
 * The one exception: the role the account's API Gateway setting may name, which that setting can
 * already point at when a first create rolls back (test/infra/api-gateway-account-role.cases.ts).
 */
const accountRoleId = logicalIdOf(stack.api.accountRoleClaim!.role);

test('nothing is retained on a failed create: every kept resource is RetainExceptOnCreate', () => {
  const kept = resources.filter(
    ([id, resource]) =>
      resource.DeletionPolicy !== undefined && resource.DeletionPolicy !== 'Delete' && id !== accountRoleId,
  );
  expect(kept.length).toBeGreaterThan(10);
  for (const [id, resource] of kept) expect([id, resource.DeletionPolicy]).toEqual([id, 'RetainExceptOnCreate']);
  expect(resources.find(([id]) => id === accountRoleId)?.[1].DeletionPolicy).toBe('Retain');
});

test('tables, the key, the user pool, the buckets and every log group are among the kept', () => {
  const keptTypes = new Set(
    resources.filter(([, r]) => r.DeletionPolicy === 'RetainExceptOnCreate').map(([, r]) => r.Type as string),
  );
  for (const type of [
    'AWS::DynamoDB::GlobalTable',
    'AWS::KMS::Key',
    'AWS::Cognito::UserPool',
    'AWS::S3::Bucket',
    'AWS::Logs::LogGroup',
  ])
    expect(keptTypes).toContain(type);
});

test('the schedule group, whose name is fixed at synth, is deleted with the stack', () => {
  const groups = resources.filter(([, r]) => r.Type === 'AWS::Scheduler::ScheduleGroup');
  expect(groups).toHaveLength(1);
  expect(groups[0]![1].DeletionPolicy).toBe('Delete');
});
