import type { GatewayConfiguration } from '../../config/configuration.js';
import { ENV } from '../../config/environment.js';
import { TtlCache } from '../../store/ttl-cache.js';
import { send } from '../../providers/http-transport.js';
import { readSecret } from '../../store/secret-values.js';
import { parseTemplate, type PromptTemplate } from './prompt-template.js';

/**
 * Client of the external prompt-template service (docs/interface.md §1, §2.2: `prompt_id`,
 * `prompt_version`). The interface does not show that service's API, so this is ours, modelled
 * on common prompt-management services (versions are immutable, labels are movable pointers):
 *
 *   GET {PROMPT_SERVICE_URL}/v1/prompts/{id}?version=N       a pinned version
 *   GET {PROMPT_SERVICE_URL}/v1/prompts/{id}?label=production the version a label points at
 *       (`label=production` is what the gateway sends when no version is pinned)
 *   Authorization: Bearer {PROMPT_SERVICE_KEY}               (omitted when the key is unset)
 *
 *   200 {id, version, labels: string[], messages: [{role, content}],
 *        variables: [{name, required, default?}], model?}
 *       role: system | developer | user | assistant; content: a string with `{{name}}` placeholders
 *   404 {error: {code: 'not_found', message}}   unknown id, version or label
 *   400 {error: {code: 'invalid_request', message}}  a malformed query
 *   401 / 403                                   the gateway's key is wrong: a deployment problem
 *   5xx                                         transient
 *
 * Locally the base URL points at local/simulators/prompt-service.ts; production code is the same.
 */

/** Well below the chat timeout: a template lookup must not eat the model's time budget. */
export const DEFAULT_PROMPT_TIMEOUT_MS = 5_000;
/** Versions are immutable, so a pinned one may live long; bounded against many distinct ids. */
const PINNED_TTL_MS = 10 * 60_000;
/** A label moves when someone promotes a version: 30 s is how long a promotion takes to show. */
const LABEL_TTL_MS = 30_000;
const MAX_ENTRIES = 500;

export const PRODUCTION_LABEL = 'production';

/** Which version of a template: a pinned version, else the version a label points at. */
export interface TemplateRef {
  readonly id: string;
  readonly version?: number;
  /** Used only without `version`; default `production`. */
  readonly label?: string;
}

export type FetchTemplateResult =
  { readonly found: true; readonly template: PromptTemplate } | { readonly found: false; readonly message: string };

export type FetchTemplate = (ref: TemplateRef, signal: AbortSignal) => Promise<FetchTemplateResult>;

/**
 * `config`: the gateway cannot use the service as deployed (no URL, key refused): an operator
 * must act, retrying will not help. `unavailable`: down, slow or unreadable: transient.
 */
export type PromptServiceFailure = 'config' | 'unavailable';

export class PromptServiceError extends Error {
  constructor(
    readonly kind: PromptServiceFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'PromptServiceError';
  }
}

export interface PromptServiceClientOptions {
  /** Where the service is and its key: the configuration's `promptService` (lambdas/config/configuration.ts). */
  readonly service: GatewayConfiguration['promptService'];
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

export interface PromptServiceClient {
  readonly fetchTemplate: FetchTemplate;
  clearCache(): void;
}

export function createPromptServiceClient(options: PromptServiceClientOptions): PromptServiceClient {
  const { service } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROMPT_TIMEOUT_MS;
  const pinned = new TtlCache<PromptTemplate>(PINNED_TTL_MS, MAX_ENTRIES, options.now);
  const labelled = new TtlCache<PromptTemplate>(LABEL_TTL_MS, MAX_ENTRIES, options.now);

  async function fetchTemplate(ref: TemplateRef, signal: AbortSignal): Promise<FetchTemplateResult> {
    const baseUrl = service.url;
    if (!baseUrl) throw new PromptServiceError('config', `${ENV.promptServiceUrl} is not set`);
    const label = ref.label ?? PRODUCTION_LABEL;
    // The base URL is part of the key: entries from another service never answer for this one.
    const pinnedKey = (version: number) => `${baseUrl}\n${ref.id}\nv${version}`;
    const key = ref.version !== undefined ? pinnedKey(ref.version) : `${baseUrl}\n${ref.id}\nlabel:${label}`;
    const cache = ref.version !== undefined ? pinned : labelled;
    const cached = cache.get(key);
    if (cached) return { found: true, template: cached };

    const query = ref.version !== undefined ? `version=${ref.version}` : `label=${encodeURIComponent(label)}`;
    const url = `${baseUrl}/v1/prompts/${encodeURIComponent(ref.id)}?${query}`;
    const result = await request(url, await serviceKey(service), signal, timeoutMs);
    // Not-found answers are not cached: a version published a moment later must be usable.
    if (!result.found) return result;
    cache.set(key, result.template);
    // What a label resolved to is also a pinned version, which never changes.
    if (ref.version === undefined) pinned.set(pinnedKey(result.template.version), result.template);
    return result;
  }

  return {
    fetchTemplate,
    clearCache() {
      pinned.clear();
      labelled.clear();
    },
  };
}

async function request(
  url: string,
  key: string | undefined,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<FetchTemplateResult> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await send({
      url,
      method: 'GET',
      headers: { accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      signal: AbortSignal.any([signal, timeout]),
    });
    const text = await response.text();
    return classify(response.status, text);
  } catch (error) {
    // The caller's own abort (client gone, overall deadline) is not the service's fault.
    if (signal.aborted) throw signal.reason;
    if (error instanceof PromptServiceError) throw error;
    if (timeout.aborted)
      throw new PromptServiceError('unavailable', `prompt service did not answer within ${timeoutMs} ms`);
    throw new PromptServiceError('unavailable', `prompt service unreachable: ${(error as Error).message}`);
  }
}

function classify(status: number, text: string): FetchTemplateResult {
  if (status === 200) {
    const template = parseTemplate(parseJson(text));
    if (!template)
      throw new PromptServiceError('unavailable', 'prompt service answered an unreadable template', status);
    return { found: true, template };
  }
  const message = serviceMessage(text) ?? `prompt service answered ${status}`;
  if (status === 404) return { found: false, message };
  if (status === 401 || status === 403) {
    throw new PromptServiceError(
      'config',
      `prompt service refused the gateway's credential (${status}): ${message}`,
      status,
    );
  }
  // 400 means we built a bad query, which is our bug rather than the caller's; 429/5xx are transient.
  const kind = status === 400 ? 'config' : 'unavailable';
  throw new PromptServiceError(kind, `prompt service answered ${status}: ${message}`, status);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function serviceMessage(text: string): string | undefined {
  const message = (parseJson(text) as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? message.slice(0, 300) : undefined;
}

/** The key itself (local runtime), else from its secret (the cloud); may be none. */
async function serviceKey(service: GatewayConfiguration['promptService']): Promise<string | undefined> {
  if (service.key) return service.key;
  const secretId = service.keySecretId;
  if (!secretId) return undefined;
  try {
    return (await readSecret(secretId)) || undefined;
  } catch (error) {
    // The stack creates the secret without a value: until the operator sets one, no key.
    if ((error as Error).name === 'ResourceNotFoundException' || /no string value/.test((error as Error).message))
      return undefined;
    throw new PromptServiceError('config', `prompt service key secret unreadable: ${(error as Error).name}`);
  }
}
