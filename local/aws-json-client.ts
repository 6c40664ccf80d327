import { SigV4Signer, type Credentials } from '../lambdas/store/signed-request.js';

/**
 * Signed calls to an AWS JSON-protocol service, for the local runtime's own machinery (the
 * stream poller reading DynamoDB Streams and writing to SQS): the gateway process plays the
 * Lambda service there, and loads no AWS SDK client for it.
 */
export interface AwsJsonClientOptions {
  readonly endpoint: string;
  readonly region: string;
  /** The signing name, e.g. `dynamodb` (DynamoDB Streams signs as DynamoDB) or `sqs`. */
  readonly service: string;
  /** `X-Amz-Target` before the operation, without the dot, e.g. `AmazonSQS`. */
  readonly targetPrefix: string;
  /** @default '1.0' */
  readonly jsonVersion?: '1.0' | '1.1';
  readonly credentials: () => Credentials;
  /** @default 10 s */
  readonly timeoutMs?: number;
}

/** An error answer, named as the service names it (the part of `__type` after `#`). */
export class AwsServiceError extends Error {
  constructor(
    name: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = name;
  }
}

/** One call; `signal` ends it early (a long poll nobody waits for any more), besides the client's timeout. */
export type AwsJsonCall = <T = Record<string, unknown>>(
  operation: string,
  input: unknown,
  signal?: AbortSignal,
) => Promise<T>;

export function awsJsonClient(options: AwsJsonClientOptions): AwsJsonCall {
  const signer = new SigV4Signer(options.region, options.service);
  const url = new URL(options.endpoint);
  return async <T>(operation: string, input: unknown, signal?: AbortSignal): Promise<T> => {
    const body = JSON.stringify(input);
    const headers: Record<string, string> = {
      'content-type': `application/x-amz-json-${options.jsonVersion ?? '1.0'}`,
      host: url.host,
      'x-amz-target': `${options.targetPrefix}.${operation}`,
    };
    signer.sign('POST', '/', headers, body, options.credentials());
    const { host: _host, ...sent } = headers;
    const response = await fetch(new URL('/', url), {
      method: 'POST',
      headers: sent,
      body,
      signal: signal
        ? AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs ?? 10_000)])
        : AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const text = await response.text();
    let answer: Record<string, unknown>;
    try {
      answer = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      throw new AwsServiceError('InternalFailure', `unreadable answer to ${operation} (${response.status})`, 500);
    }
    if (response.ok) return answer as T;
    const type = String(answer['__type'] ?? 'UnknownError');
    throw new AwsServiceError(
      type.slice(type.lastIndexOf('#') + 1),
      String(answer['message'] ?? answer['Message'] ?? type),
      response.status,
    );
  };
}
