import { createHmac, createSecretKey, hash, type KeyObject } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * Signed POSTs to AWS's APIs without the SDK: Signature Version 4 and one keep-alive connection
 * pool, shared by the small DynamoDB client (JSON protocol) and the STS client (Query protocol).
 * Each reads its own answer format; only the transport is here.
 */

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 128 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 128 });

/** The answer's status and body, whatever the status; a connection failure or timeout rejects. */
export function signedPost(
  url: URL,
  headers: Record<string, string>,
  body: string,
  signer: SigV4Signer,
  credentials: Credentials,
  timeoutMs: number,
  /** Names the service in a timeout's message. */
  service: string,
): Promise<{ status: number; text: string }> {
  signer.sign('POST', '/', headers, body, credentials);
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)(
      {
        hostname: url.hostname,
        port: url.port,
        path: '/',
        method: 'POST',
        headers,
        agent: secure ? httpsAgent : httpAgent,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 500, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${service} did not answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** AWS Signature Version 4 for JSON-protocol POSTs; the signing key is kept per day. */
export class SigV4Signer {
  /** A KeyObject, so each signature does not re-import the key. */
  private key: { scope: string; secret: string; value: KeyObject } | undefined;

  constructor(
    private readonly region: string,
    private readonly service: string,
  ) {}

  sign(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string,
    credentials: Credentials,
    now = new Date(),
  ): void {
    const amzDate = now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const day = amzDate.slice(0, 8);
    headers['x-amz-date'] = amzDate;
    if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
    const names = Object.keys(headers)
      .map((name) => name.toLowerCase())
      .sort();
    const lower: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value.trim();
    const signedHeaders = names.join(';');
    const canonical = `${method}\n${path}\n\n${names.map((n) => `${n}:${lower[n]}\n`).join('')}\n${signedHeaders}\n${sha256(body)}`;
    const scope = `${day}/${this.region}/${this.service}/aws4_request`;
    const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256(canonical)}`;
    const signature = createHmac('sha256', this.signingKey(scope, day, credentials.secretAccessKey))
      .update(toSign)
      .digest('hex');
    headers['authorization'] =
      `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  }

  private signingKey(scope: string, day: string, secret: string): KeyObject {
    if (this.key?.scope === scope && this.key.secret === secret) return this.key.value;
    const date = createHmac('sha256', `AWS4${secret}`).update(day).digest();
    const region = createHmac('sha256', date).update(this.region).digest();
    const service = createHmac('sha256', region).update(this.service).digest();
    const value = createSecretKey(createHmac('sha256', service).update('aws4_request').digest());
    this.key = { scope, secret, value };
    return value;
  }
}

const sha256 = (text: string) => hash('sha256', text, 'hex');
