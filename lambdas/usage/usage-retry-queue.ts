import { required, type GatewayConfiguration } from '../config/configuration.js';
import { ENV } from '../config/environment.js';
import { SigV4Signer, type Credentials } from '../store/signed-request.js';
import type { RetrySender } from '../store/usage-ledger-puts.js';
import type { UsageEntry } from '../store/usage-items.js';
import { retryMessageBodies } from './usage-retry-messages.js';

const ATTEMPTS = 3;
const TIMEOUT_MS = 5_000;

/** SQS refused a message (or never answered): the entries it carried are not queued. */
export class RetryQueueError extends Error {
  override readonly name = 'RetryQueueError';
}

export interface SqsRetryQueueOptions {
  readonly queueUrl: string;
  readonly region: string;
  /** The SQS endpoint (AWS_ENDPOINT_URL_SQS locally). */
  readonly endpoint: string;
  readonly credentials: () => Credentials;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Calls SQS's JSON protocol (`AmazonSQS.<action>`) on the options' queue, retrying throttling and
 * 5xx answers. Only rare events take this path (a failed ledger put, a budget crossing, a failed
 * budget webhook), so it is a plain signed fetch rather than the SDK's client and its load time.
 */
export function sqsQueueCall(
  options: SqsRetryQueueOptions,
): (action: string, input: Record<string, unknown>) => Promise<void> {
  const signer = new SigV4Signer(options.region, 'sqs');
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  const attemptSend = async (
    action: string,
    payload: string,
  ): Promise<{ retryable: boolean; error: RetryQueueError } | undefined> => {
    const url = new URL(options.endpoint);
    const headers: Record<string, string> = {
      'content-type': 'application/x-amz-json-1.0',
      host: url.host,
      'x-amz-target': `AmazonSQS.${action}`,
    };
    signer.sign('POST', '/', headers, payload, options.credentials());
    // Signed with the host, sent without: fetch sets Host itself from the URL.
    const { host: _host, ...sent } = headers;
    try {
      const response = await fetch(new URL('/', url), {
        method: 'POST',
        headers: sent,
        body: payload,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const text = await response.text();
      if (response.ok) return undefined;
      return {
        retryable: response.status >= 500 || /throttl|overlimit/i.test(text),
        error: new RetryQueueError(`SQS answered ${response.status}: ${text.slice(0, 200)}`),
      };
    } catch (error) {
      // No answer: the message may or may not be queued. Sending it again at worst queues it
      // twice, and both of this sender's consumers are idempotent (a usage redrive is a PartiQL
      // INSERT, which never writes a key twice; a budget event keeps its webhook-id, the
      // receiver's idempotency key).
      return { retryable: true, error: new RetryQueueError(`SQS did not answer: ${String(error)}`) };
    }
  };
  return async (action, input) => {
    const payload = JSON.stringify({ QueueUrl: options.queueUrl, ...input });
    for (let attempt = 1; ; attempt++) {
      const failure = await attemptSend(action, payload);
      if (failure === undefined) return;
      if (!failure.retryable || attempt >= ATTEMPTS) throw failure.error;
      await sleep(Math.random() * 50 * 2 ** attempt);
    }
  };
}

/** Sends one message at a time to the options' queue. */
export function sqsMessageSender(options: SqsRetryQueueOptions): (body: string) => Promise<void> {
  const call = sqsQueueCall(options);
  return (body) => call('SendMessage', { MessageBody: body });
}

/** Sends entries to the retry queue, one message per MAX_RETRY_MESSAGE_BYTES of entries. */
export function sqsRetrySender(options: SqsRetryQueueOptions): RetrySender {
  const sendOne = sqsMessageSender(options);
  return async (entries: readonly UsageEntry[]) => {
    for (const body of retryMessageBodies(entries)) await sendOne(body);
  };
}

/** Where a deployed sender sends from: the configuration's region, SQS endpoint and the function role's credentials. */
export function deploymentQueueOptions(
  config: GatewayConfiguration,
  queueUrl: string,
): Omit<SqsRetryQueueOptions, 'sleep'> {
  const region = required(config.region, 'AWS_REGION');
  const credentials = required(config.credentials, 'AWS_ACCESS_KEY_ID');
  return {
    queueUrl,
    region,
    endpoint: config.endpoints.sqs ?? `https://sqs.${region}.amazonaws.com`,
    credentials: () => credentials,
  };
}

/** The deployed sender: the configuration's queue (USAGE_RETRY_QUEUE_URL). */
export function deploymentRetrySender(config: GatewayConfiguration): RetrySender {
  return sqsRetrySender(deploymentQueueOptions(config, required(config.usageRetryQueueUrl, ENV.usageRetryQueueUrl)));
}
