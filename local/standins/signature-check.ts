/**
 * AWS Signature Version 4, checked as AWS checks it, for the local stand-ins: only a caller
 * holding the runtime's secret access key may use them, not any process that can reach
 * loopback. The signature is computed again from the request as received (with
 * @smithy/signature-v4, not the gateway's own signer, so a fault in either shows) and compared
 * in constant time. Refusals carry the names and wording AWS's JSON services answer with.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { openTenantSession, type TenantSession } from './tenant-sessions.mjs';

export interface StandInCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export interface ReceivedRequest {
  readonly method: string;
  /** Path and query, as received. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Uint8Array;
}

export interface SignatureRefusal {
  /** The AWS error name, e.g. `InvalidSignatureException`. */
  readonly type: string;
  readonly message: string;
}

/** How far a request's `X-Amz-Date` may be from the stand-in's clock, either way, as in AWS. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

const ALGORITHM = 'AWS4-HMAC-SHA256';
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const SIGNATURE = /^[0-9a-f]{64}$/;

const refuse = (type: string, message: string): SignatureRefusal => ({ type, message });
const incomplete = (message: string) => refuse('IncompleteSignatureException', message);
const UNRECOGNIZED = refuse('UnrecognizedClientException', 'The security token included in the request is invalid.');
const MISMATCH = refuse(
  'InvalidSignatureException',
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
);

interface Authorization {
  readonly accessKeyId: string;
  readonly day: string;
  readonly region: string;
  readonly service: string;
  readonly signedHeaders: readonly string[];
  readonly signature: string;
}

/**
 * Who signed a request: the runtime's own credentials (`tenant` undefined), or a tenant session
 * the STS stand-in issued (local/standins/tenant-sessions.mjs), whose policy the stand-in then
 * enforces.
 */
export interface SignedCaller {
  readonly tenant?: TenantSession;
}

/** Why `request` may not be served with `credentials`, or undefined when its signature holds. */
export async function signatureRefusal(
  request: ReceivedRequest,
  credentials: StandInCredentials,
  now: number,
): Promise<SignatureRefusal | undefined> {
  const caller = await signedCaller(request, credentials, now);
  return 'type' in caller ? caller : undefined;
}

/**
 * The request's signer, or why it may not be served: signed with the runtime's credentials, or
 * with a tenant session's (its access key, its derived secret, its token sent and valid).
 */
export async function signedCaller(
  request: ReceivedRequest,
  credentials: StandInCredentials,
  now: number,
): Promise<SignatureRefusal | SignedCaller> {
  const header = headerValue(request.headers, 'authorization');
  if (header === undefined || header === '')
    return refuse('MissingAuthenticationTokenException', 'Missing Authentication Token');
  const authorization = parseAuthorization(header);
  if ('type' in authorization) return authorization;
  const amzDate = headerValue(request.headers, 'x-amz-date') ?? '';
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === undefined)
    return incomplete(
      "Authorization header requires existence of a valid 'X-Amz-Date' header in ISO 8601 basic format.",
    );
  if (!authorization.signedHeaders.includes('host') || !authorization.signedHeaders.includes('x-amz-date'))
    return incomplete("'Host' and 'X-Amz-Date' must be among the SignedHeaders of the Authorization header.");
  const skew = skewRefusal(amzDate, signedAt, now);
  if (skew) return skew;
  if (authorization.day !== amzDate.slice(0, 8))
    return refuse(
      'InvalidSignatureException',
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${authorization.day}' != '${amzDate.slice(0, 8)}', from '${amzDate}'.`,
    );
  // The runtime's credentials are long-term keys, sent without a token; a token must be one of
  // the STS stand-in's sessions, and the request signed with that session's secret.
  const token = headerValue(request.headers, 'x-amz-security-token');
  let signer = credentials;
  let tenant: TenantSession | undefined;
  if (token) {
    const session = openTenantSession(credentials, authorization.accessKeyId, token, now);
    if ('type' in session) return session;
    tenant = session;
    signer = { accessKeyId: session.accessKeyId, secretAccessKey: session.secretAccessKey };
  } else if (authorization.accessKeyId !== credentials.accessKeyId) return UNRECOGNIZED;
  const payloadHash = createHash('sha256').update(request.body).digest('hex');
  const claimedHash = headerValue(request.headers, 'x-amz-content-sha256');
  // The signer trusts this header for the payload's hash, so it must be the body's.
  if (claimedHash !== undefined && claimedHash !== payloadHash) return MISMATCH;
  const expected = await expectedSignature(request, authorization, signer, signedAt);
  if (expected === undefined || !SIGNATURE.test(authorization.signature)) return MISMATCH;
  if (!timingSafeEqual(Buffer.from(expected), Buffer.from(authorization.signature))) return MISMATCH;
  return tenant ? { tenant } : {};
}

function parseAuthorization(header: string): Authorization | SignatureRefusal {
  if (!header.startsWith(`${ALGORITHM} `))
    return incomplete(`Authorization header must use the ${ALGORITHM} algorithm.`);
  const fields = new Map<string, string>();
  for (const part of header.slice(ALGORITHM.length + 1).split(',')) {
    const at = part.indexOf('=');
    if (at > 0) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  const credential = fields.get('Credential')?.split('/');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!credential || signedHeaders === undefined || signature === undefined)
    return incomplete("Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.");
  const [accessKeyId, day, region, service, terminator] = credential;
  if (credential.length !== 5 || !accessKeyId || !day || !region || !service || terminator !== 'aws4_request')
    return incomplete("Credential must have the form '<access key id>/<YYYYMMDD>/<region>/<service>/aws4_request'.");
  return { accessKeyId, day, region, service, signedHeaders: signedHeaders.split(';'), signature };
}

function parseAmzDate(text: string): number | undefined {
  const parts = AMZ_DATE.exec(text);
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number) as [number, ...number[]];
  const time = Date.UTC(year, month! - 1, day, hour, minute, second);
  return Number.isNaN(time) ? undefined : time;
}

function skewRefusal(amzDate: string, signedAt: number, now: number): SignatureRefusal | undefined {
  const format = (time: number) => new Date(time).toISOString().replace(/[-:]|\.\d{3}/g, '');
  if (signedAt < now - MAX_CLOCK_SKEW_MS)
    return refuse(
      'InvalidSignatureException',
      `Signature expired: ${amzDate} is now earlier than ${format(now - MAX_CLOCK_SKEW_MS)} (${format(now)} - 5 min.)`,
    );
  if (signedAt > now + MAX_CLOCK_SKEW_MS)
    return refuse(
      'InvalidSignatureException',
      `Signature not yet current: ${amzDate} is still later than ${format(now + MAX_CLOCK_SKEW_MS)} (${format(now)} + 5 min.)`,
    );
  return undefined;
}

/** The signature the caller should have sent, or undefined when a header it signed is absent. */
async function expectedSignature(
  request: ReceivedRequest,
  authorization: Authorization,
  credentials: StandInCredentials,
  signedAt: number,
): Promise<string | undefined> {
  const headers: Record<string, string> = {};
  for (const name of authorization.signedHeaders) {
    const value = headerValue(request.headers, name);
    if (value === undefined) return undefined;
    headers[name] = value;
  }
  const url = new URL(request.url, 'http://stand-in.invalid');
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const held = query[name];
    query[name] = held === undefined ? value : [...(Array.isArray(held) ? held : [held]), value];
  }
  const signer = new SignatureV4({
    credentials,
    region: authorization.region,
    service: authorization.service,
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: url.hostname,
      path: url.pathname,
      query,
      headers,
      body: request.body,
    },
    {
      signingDate: new Date(signedAt),
      signingRegion: authorization.region,
      signingService: authorization.service,
      // Exactly the caller's list, even a header the signer would leave out by default.
      signableHeaders: new Set(authorization.signedHeaders),
    },
  );
  return /Signature=([0-9a-f]{64})$/.exec(String(signed.headers['authorization']))?.[1];
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}
