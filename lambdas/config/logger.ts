import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The structured logger. Handlers log ids and outcomes, never headers or bodies, so keys,
 * tokens and cookies cannot reach the logs; `redact` below is the backstop for anything
 * that looks like one of our credentials.
 */
export const logger = new Logger({ serviceName: 'ai-gateway' });

const CREDENTIAL = /\b(sk|pk)_[a-z2-7]{20}_[A-Za-z0-9_-]{43}\b/g;

export function redact(text: string): string {
  return text.replace(CREDENTIAL, '$1_[redacted]');
}
