// Tenant sessions for the local stand-ins: the credentials the STS stand-in issues for
// AssumeRole with session tags (local/standins/sts.ts), and what every stand-in enforces for
// them, from the same data the stack's tenant-access role is built from (lib/tenant-access-policy.ts).
// Plain .mjs so the embedded DynamoDB's child process (plain node) enforces the same rules.
//
// Stateless across processes: the session token is the session itself (its role, tags and
// expiry) with an HMAC under the runtime's secret access key, and the session's secret key is
// derived from the token under the same key. So the Secrets Manager stand-in and the embedded
// DynamoDB, in other processes, can open any session the STS stand-in made and verify it was
// made there, while a forged or altered token, or one past its expiry, is refused as AWS does.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** The stand-ins' own AWS account, as in the ARNs the local runtime uses. */
export const LOCAL_ACCOUNT = '000000000000';

const mac = (secret, purpose, text) => createHmac('sha256', secret).update(`${purpose}\n${text}`).digest();
const secretOf = (master, token) => mac(master.secretAccessKey, 'tenant-session-secret', token).toString('base64');

/**
 * Credentials for an assumed role: an `ASIA…` key, the derived secret, the token, and when
 * they expire (epoch ms). `tags` are the session tags.
 */
export function issueTenantSession(master, { roleArn, sessionName, tags, durationSeconds, now = Date.now() }) {
  const accessKeyId = `ASIA${Array.from(randomBytes(16), (byte) => BASE32[byte & 31]).join('')}`;
  const expiresAt = now + durationSeconds * 1000;
  const payload = Buffer.from(JSON.stringify({ accessKeyId, roleArn, sessionName, tags, expiresAt })).toString(
    'base64url',
  );
  const sessionToken = `${payload}.${mac(master.secretAccessKey, 'tenant-session', payload).toString('base64url')}`;
  return { accessKeyId, secretAccessKey: secretOf(master, sessionToken), sessionToken, expiresAt };
}

const INVALID_TOKEN = {
  type: 'UnrecognizedClientException',
  message: 'The security token included in the request is invalid.',
};
const EXPIRED_TOKEN = {
  type: 'ExpiredTokenException',
  message: 'The security token included in the request is expired',
};

/**
 * The session a request's access key and token name, with the secret its signature must be
 * made with, or the refusal AWS answers for a token it did not issue or that has expired.
 */
export function openTenantSession(master, accessKeyId, sessionToken, now = Date.now()) {
  const [payload, signature, ...rest] = String(sessionToken).split('.');
  if (!payload || !signature || rest.length > 0) return INVALID_TOKEN;
  const expected = mac(master.secretAccessKey, 'tenant-session', payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return INVALID_TOKEN;
  const session = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  if (session.accessKeyId !== accessKeyId) return INVALID_TOKEN;
  if (session.expiresAt <= now) return EXPIRED_TOKEN;
  const roleName = String(session.roleArn).split('/').pop();
  return {
    accessKeyId,
    secretAccessKey: secretOf(master, sessionToken),
    tags: session.tags,
    expiresAt: session.expiresAt,
    arn: `arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/${roleName}/${session.sessionName}`,
  };
}

/** IAM's StringLike: `*` any run of characters, `?` any one, after the policy variables are put in. */
export function stringLike(pattern, value, tags) {
  const resolved = pattern.replace(/\$\{aws:PrincipalTag\/([^}]+)\}/g, (_, key) => tags?.[key] ?? '\u0000');
  const expression = resolved
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return !resolved.includes('\u0000') && new RegExp(`^${expression}$`, 's').test(value);
}

/** IAM's refusal as the JSON services answer it. */
export function accessDenied(session, action, resource) {
  return {
    type: 'AccessDeniedException',
    message:
      `User: ${session.arn} is not authorized to perform: ${action} on resource: ${resource} ` +
      `because no identity-based policy allows the ${action} action`,
  };
}

/**
 * Why a DynamoDB call made under a tenant session is refused, or undefined when its policy
 * allows it. `reads` maps a physical table name to `{ actions, leadingKeys }`
 * (lib/tenant-access-policy.ts): the action must be one of them, and every partition key the
 * call names must match one of the leading-key patterns (`ForAllValues:StringLike`). A Query
 * on an index is on the index's ARN, which no tenant statement names.
 */
export function dynamoDbRefusal(session, reads, operation, input) {
  const action = `dynamodb:${operation}`;
  const arn = (table, index) =>
    `arn:aws:dynamodb:us-east-1:${LOCAL_ACCOUNT}:table/${table}${index ? `/index/${index}` : ''}`;
  const calls =
    operation === 'BatchGetItem'
      ? Object.entries(input.RequestItems ?? {}).map(([table, request]) => ({
          table,
          keys: (request?.Keys ?? []).map((key) => key?.pk?.S),
        }))
      : [{ table: input.TableName, index: input.IndexName, keys: [partitionKeyOf(operation, input)] }];
  for (const { table, index, keys } of calls) {
    const allowed = reads[table];
    if (!allowed || index || !allowed.actions.includes(action)) return accessDenied(session, action, arn(table, index));
    const within = keys.every(
      (key) => typeof key === 'string' && allowed.leadingKeys.some((pattern) => stringLike(pattern, key, session.tags)),
    );
    if (!within) return accessDenied(session, action, arn(table));
  }
  return undefined;
}

/** The partition key value a single-item call or a Query names (`pk`, every table's). */
function partitionKeyOf(operation, input) {
  if (operation === 'GetItem' || operation === 'UpdateItem' || operation === 'DeleteItem') return input.Key?.pk?.S;
  if (operation === 'PutItem') return input.Item?.pk?.S;
  if (operation !== 'Query') return undefined;
  const legacy = input.KeyConditions?.pk;
  if (legacy) return legacy.ComparisonOperator === 'EQ' ? legacy.AttributeValueList?.[0]?.S : undefined;
  const names = input.ExpressionAttributeNames ?? {};
  for (const clause of String(input.KeyConditionExpression ?? '').split(/\s+AND\s+/i)) {
    const match = /^\s*\(?\s*(#?[\w]+)\s*=\s*(:[\w]+)\s*\)?\s*$/.exec(clause);
    if (!match) continue;
    const name = match[1].startsWith('#') ? names[match[1]] : match[1];
    if (name === 'pk') return input.ExpressionAttributeValues?.[match[2]]?.S;
  }
  return undefined;
}
