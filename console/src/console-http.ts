/**
 * The console's one way to the API: same-origin fetches with the session cookie (the browser
 * sends it and the Origin the gateway checks on writes), answers unwrapped from the
 * `{success, data}` envelope, failures as `ApiFailure` carrying the field the gateway named.
 */

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

type Listener = () => void;
const expiryListeners = new Set<Listener>();

/** Called when a session route answers 401: the cookie expired or was ended elsewhere. */
export function onSessionExpired(listener: Listener): () => void {
  expiryListeners.add(listener);
  return () => expiryListeners.delete(listener);
}

export interface CallOptions {
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
  /** A 401 here is not the session ending (sign-in itself, the arena key's routes). */
  readonly quietUnauthorized?: boolean;
}

export async function callApi<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiFailure(0, 'NETWORK', 'The gateway could not be reached; check the connection and try again.');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; field?: string } } | undefined)?.error;
    if (response.status === 401 && !options.quietUnauthorized) for (const listener of expiryListeners) listener();
    throw new ApiFailure(
      response.status,
      error?.code ?? `HTTP_${response.status}`,
      error?.message ?? `The gateway answered ${response.status}`,
      error?.field,
      parsed,
    );
  }
  const envelope = parsed as { data?: T } | undefined;
  return (envelope && 'data' in envelope ? envelope.data : parsed) as T;
}

/** One line for a failure, naming the field when the gateway named one. */
export function describeFailure(error: unknown): string {
  if (error instanceof ApiFailure) return error.field ? `${error.message} (${error.field})` : error.message;
  return error instanceof Error ? error.message : String(error);
}
