import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { StandInCredentials } from '../../local/standins/signature-check.js';

/**
 * Raw calls to a local AWS stand-in in its JSON protocol, signed as an AWS SDK client signs
 * them (SigV4), for tests that call a stand-in without an SDK client or change a signed
 * request before sending it.
 */
export interface AwsJsonRequest {
  readonly target: string;
  readonly body: string;
  readonly credentials: StandInCredentials;
  /** @default now */
  readonly signingDate?: Date;
  /** @default 'application/x-amz-json-1.1' */
  readonly contentType?: string;
}

/** The headers a signed POST of `request` to `url` carries (`host` included, as signed). */
export async function signedHeaders(url: string, request: AwsJsonRequest): Promise<Record<string, string>> {
  const { host, hostname, port } = new URL(url);
  const signer = new SignatureV4({
    service: 'secretsmanager',
    region: 'us-east-1',
    credentials: request.credentials,
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname,
      port: Number(port),
      path: '/',
      headers: {
        host,
        'content-type': request.contentType ?? 'application/x-amz-json-1.1',
        'x-amz-target': request.target,
      },
      body: request.body,
    },
    request.signingDate ? { signingDate: request.signingDate } : {},
  );
  return signed.headers;
}

/** Sends `headers` and `body` as they are; fetch sets `host` from the URL, the value signed. */
export function postRaw(url: string, headers: Record<string, string>, body: string): Promise<Response> {
  const sent = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'host'));
  return fetch(url, { method: 'POST', headers: sent, body });
}

/** One signed call; resolves to the parsed answer, or rejects with an error named as AWS names it. */
export async function awsJsonCall(
  url: string,
  target: string,
  input: unknown,
  credentials: StandInCredentials,
): Promise<Record<string, unknown>> {
  const body = JSON.stringify(input);
  const response = await postRaw(url, await signedHeaders(url, { target, body, credentials }), body);
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok)
    throw Object.assign(new Error(String(answer['message'] ?? target)), { name: String(answer['__type'] ?? 'Error') });
  return answer;
}
