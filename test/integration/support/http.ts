/** Small HTTP helpers over fetch: every call is real HTTP over loopback. */
export interface Answer {
  status: number;
  headers: Headers;
  body: any; // response JSON under test
  text: string;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw body text, sent as it is (for malformed-input tests). */
  rawBody?: string;
}

export async function call(url: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(url, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
