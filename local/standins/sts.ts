/**
 * STS stand-in for the local runtime: AssumeRole with session tags, the one operation the
 * gateway calls (lambdas/store/sts-client.ts), over STS's Query protocol (a form POST, an XML
 * answer). Signed with the runtime's credentials like every stand-in (signature-check.ts), and
 * judged by the tenant-access role's trust as the stack writes it
 * (lib/constructs/tenant-access-role.ts): only that role, an `account` tag that is the only tag,
 * no transitive tags, no chaining from a tenant session, 15 minutes to the role's maximum.
 * The credentials it issues carry their tags in their token (tenant-sessions.mjs), which the
 * Secrets Manager stand-in and the embedded DynamoDB enforce.
 *
 * `latencyMs` makes every call wait as a regional STS call would, for the benchmarks.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { environmentCredentials, listenOnLoopback } from './aws-json-server.js';
import { signedCaller, type StandInCredentials } from './signature-check.js';
import { issueTenantSession, LOCAL_ACCOUNT } from './tenant-sessions.mjs';

export interface StsStandInOptions {
  /** The one role that may be assumed. */
  readonly roleArn: string;
  /** The session tag that must be sent, alone. */
  readonly sessionTag: string;
  /** The role's longest session. */
  readonly maxSessionSeconds: number;
  readonly port?: number;
  /** @default the process's AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY */
  readonly credentials?: StandInCredentials;
  /** Each call waits this long before it is answered. @default 0 */
  readonly latencyMs?: number;
}

export interface StsStandIn {
  readonly url: string;
  /** AssumeRole calls answered with credentials so far. */
  readonly issued: () => number;
  close(): Promise<void>;
}

class StsRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const MIN_SESSION_SECONDS = 900;
const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
const TAG_VALUE = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]{0,256}$/u;
const MAX_BODY_BYTES = 64 * 1024;

export async function startStsStandIn(options: StsStandInOptions): Promise<StsStandIn> {
  const credentials = options.credentials ?? environmentCredentials();
  let issued = 0;
  const server = createServer((req, res) => {
    answer(req)
      .then((xml) => send(res, 200, xml))
      .catch((error: unknown) => {
        const refusal = error instanceof StsRefusal ? error : new StsRefusal('InternalFailure', String(error), 500);
        send(res, refusal.status, errorXml(refusal));
      });
  });

  async function answer(req: IncomingMessage): Promise<string> {
    if (options.latencyMs) await sleep(options.latencyMs);
    const body = await readBody(req);
    const caller = await signedCaller(
      { method: req.method ?? 'POST', url: req.url ?? '/', headers: req.headers, body },
      credentials,
      Date.now(),
    );
    if ('type' in caller) throw new StsRefusal(caller.type, caller.message, 403);
    const form = new URLSearchParams(body.toString('utf8'));
    if (form.get('Action') !== 'AssumeRole')
      throw new StsRefusal(
        'InvalidAction',
        `Could not find operation ${form.get('Action')} for version 2011-06-15`,
        400,
      );
    const roleArn = form.get('RoleArn') ?? '';
    const sessionName = form.get('RoleSessionName') ?? '';
    const durationSeconds = Number(form.get('DurationSeconds') ?? 3600);
    if (!SESSION_NAME.test(sessionName))
      throw new StsRefusal('ValidationError', 'RoleSessionName must match [\\w+=,.@-]{2,64}', 400);
    if (!Number.isInteger(durationSeconds) || durationSeconds < MIN_SESSION_SECONDS)
      throw new StsRefusal('ValidationError', 'DurationSeconds must be at least 900', 400);
    if (durationSeconds > options.maxSessionSeconds)
      throw new StsRefusal(
        'ValidationError',
        'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.',
        400,
      );
    const tags: Record<string, string> = {};
    for (let n = 1; form.has(`Tags.member.${n}.Key`); n++) {
      const value = form.get(`Tags.member.${n}.Value`) ?? '';
      if (!TAG_VALUE.test(value)) throw new StsRefusal('ValidationError', `tag ${n}: not a valid tag value`, 400);
      tags[form.get(`Tags.member.${n}.Key`)!] = value;
    }
    // The trust policy: this role, from the runtime's own credentials (not a tenant session),
    // the account tag present and alone, nothing transitive.
    const denied = () =>
      new StsRefusal(
        'AccessDenied',
        `User: arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/gateway-function/local is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
        403,
      );
    if (caller.tenant || roleArn !== options.roleArn) throw denied();
    const keys = Object.keys(tags);
    if (keys.length !== 1 || keys[0] !== options.sessionTag || tags[options.sessionTag] === '') throw denied();
    if ([...form.keys()].some((key) => key.startsWith('TransitiveTagKeys'))) throw denied();
    const session = issueTenantSession(credentials, { roleArn, sessionName, tags, durationSeconds });
    issued++;
    const roleName = roleArn.split('/').pop();
    return (
      '<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>' +
      `<Credentials><AccessKeyId>${session.accessKeyId}</AccessKeyId>` +
      `<SecretAccessKey>${escape(session.secretAccessKey)}</SecretAccessKey>` +
      `<SessionToken>${escape(session.sessionToken)}</SessionToken>` +
      `<Expiration>${new Date(session.expiresAt).toISOString()}</Expiration></Credentials>` +
      `<AssumedRoleUser><AssumedRoleId>AROALOCAL:${sessionName}</AssumedRoleId>` +
      `<Arn>arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/${roleName}/${sessionName}</Arn></AssumedRoleUser>` +
      `<PackedPolicySize>${keys.length}</PackedPolicySize></AssumeRoleResult>` +
      `<ResponseMetadata><RequestId>${randomBytes(16).toString('hex')}</RequestId></ResponseMetadata>` +
      '</AssumeRoleResponse>'
    );
  }

  const listening = await listenOnLoopback(server, options.port);
  return {
    ...listening,
    issued: () => issued,
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new StsRefusal('ValidationError', 'request body too large', 413);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function errorXml(refusal: StsRefusal): string {
  const type = refusal.status >= 500 ? 'Receiver' : 'Sender';
  return (
    '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">' +
    `<Error><Type>${type}</Type><Code>${refusal.code}</Code><Message>${escape(refusal.message)}</Message></Error>` +
    `<RequestId>${randomBytes(16).toString('hex')}</RequestId></ErrorResponse>`
  );
}

function send(res: ServerResponse, status: number, xml: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(xml) });
  res.end(xml);
}
