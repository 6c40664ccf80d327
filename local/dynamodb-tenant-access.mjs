// The tenant-access role's policy, enforced by the embedded DynamoDB for calls signed with a
// tenant session the STS stand-in issued (local/standins/tenant-sessions.mjs): only the actions
// and tables the policy names, and every partition key a call names within the session's
// account (`dynamodb:LeadingKeys`). Refusals are AWS's: AccessDeniedException naming the session
// and the table, UnrecognizedClientException for a token the STS stand-in did not make,
// ExpiredTokenException for one past its time. Calls without a session token are served as
// before: the embedded DynamoDB checks no one's signature, the function role's included.
import { replay } from './dynamodb-replayed-call.mjs';
import { INTERNAL_HEADER } from './dynamodb-transactions.mjs';
import { dynamoDbRefusal, openTenantSession } from './standins/tenant-sessions.mjs';

const TARGET_PREFIX = 'DynamoDB_20120810.';
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * @param {import('node:http').Server} server dynalite's server (with its other layers), before it listens
 * @param {{ credentials: { accessKeyId: string, secretAccessKey: string }, reads: Record<string, { actions: string[], leadingKeys: string[] }> }} options
 */
export function addTenantAccess(server, { credentials, reads }) {
  const [inner] = server.listeners('request');
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    const token = req.headers['x-amz-security-token'];
    if (req.headers[INTERNAL_HEADER] || token === undefined) return inner.call(server, req, res);
    const accessKeyId = /Credential=([^/,\s]+)\//.exec(String(req.headers['authorization'] ?? ''))?.[1] ?? '';
    const session = openTenantSession(credentials, accessKeyId, String(token));
    if ('type' in session) return refuse(res, session);
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let input;
      try {
        input = JSON.parse(body.toString('utf8') || '{}');
      } catch {
        return inner.call(server, replay(req, body), res);
      }
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : target;
      const refusal = dynamoDbRefusal(session, reads, operation, input ?? {});
      if (refusal) return refuse(res, refusal);
      inner.call(server, replay(req, body), res);
    });
  });
}

function refuse(res, { type, message }) {
  const payload = JSON.stringify({ __type: `com.amazon.coral.service#${type}`, Message: message });
  res.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}
