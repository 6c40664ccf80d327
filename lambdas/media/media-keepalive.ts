/**
 * A JSON answer that may take minutes, on a streaming route: API Gateway closes a stream idle
 * for 5 minutes (REGIONAL) or 30 seconds (EDGE), so while the answer is pending a space is
 * sent every `intervalMs`. JSON allows whitespace before a value, so the body stays one JSON
 * document for any client. The status (200) is committed with the first space: an answer that
 * fails later is an error envelope in that body.
 */
export async function* jsonKeptAlive(answer: Promise<unknown>, intervalMs: number): AsyncGenerator<Uint8Array> {
  const settled = answer.then(
    (body) => ({ body }),
    (error: unknown) => ({ error }),
  );
  for (;;) {
    const result = await within(settled, intervalMs);
    if (result === undefined) {
      yield SPACE;
      continue;
    }
    if ('error' in result) throw result.error;
    yield Buffer.from(JSON.stringify(result.body));
    return;
  }
}

const SPACE = Buffer.from(' ');

/** The promise's value if it settles within `ms`, else undefined. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
