/**
 * Merges N agent streams into one event stream. Each source runs under its own
 * AbortController: aborting one agent ends that agent only, and one agent's failure is an
 * event, never the end of the others. Items are pulled as the consumer reads (one item of
 * lookahead per source), so a slow reader slows the sources instead of buffering them.
 */

/**
 * One agent: opens its stream under the signal the merge aborts it with. It must end its
 * reads when that signal aborts (the chat core does): the merge stops waiting at once, but
 * returns the iterator only after the read in flight settles.
 */
export interface MergeSource<T> {
  readonly id: string;
  open(signal: AbortSignal): AsyncIterable<T>;
}

export type MergedEvent<T> =
  | { readonly kind: 'item'; readonly source: string; readonly value: T }
  | { readonly kind: 'done'; readonly source: string }
  | { readonly kind: 'error'; readonly source: string; readonly error: unknown }
  | { readonly kind: 'aborted'; readonly source: string };

export interface MergedStreams<T> extends AsyncIterable<MergedEvent<T>> {
  /** Ends one source: its signal is aborted and the merge stops waiting for it at once. */
  abort(source: string, reason?: unknown): void;
}

type Settled<T> =
  { readonly ok: true; readonly result: IteratorResult<T> } | { readonly ok: false; readonly error: unknown };

interface Live<T> {
  readonly iterator: AsyncIterator<T>;
  pending?: Promise<{ readonly id: string; readonly settled: Settled<T> }>;
}

/** `signal` (e.g. the caller leaving) aborts every source; so does the consumer stopping early. */
export function mergeStreams<T>(sources: readonly MergeSource<T>[], signal?: AbortSignal): MergedStreams<T> {
  const controllers = new Map(sources.map((source) => [source.id, new AbortController()]));
  let wake: (() => void) | undefined;
  const abort = (id: string, reason?: unknown) => {
    const controller = controllers.get(id);
    if (!controller || controller.signal.aborted) return;
    controller.abort(reason);
    wake?.();
  };
  const abortAll = (reason?: unknown) => {
    for (const id of controllers.keys()) abort(id, reason);
  };
  if (signal?.aborted) abortAll(signal.reason);
  else signal?.addEventListener('abort', () => abortAll(signal.reason), { once: true });
  const aborted = (id: string) => controllers.get(id)!.signal.aborted;

  async function* events(): AsyncGenerator<MergedEvent<T>> {
    const live = new Map<string, Live<T>>();
    for (const source of sources) {
      try {
        live.set(source.id, { iterator: source.open(controllers.get(source.id)!.signal)[Symbol.asyncIterator]() });
      } catch (error) {
        yield { kind: 'error', source: source.id, error };
      }
    }
    try {
      while (live.size > 0) {
        for (const [id, entry] of live) {
          if (!aborted(id)) continue;
          live.delete(id);
          close(entry);
          yield { kind: 'aborted', source: id };
        }
        if (live.size === 0) break;
        for (const [id, entry] of live) entry.pending ??= settle(id, entry.iterator);
        const woken = new Promise<undefined>((resolve) => (wake = () => resolve(undefined)));
        const next = await Promise.race([...[...live.values()].map((entry) => entry.pending!), woken]);
        wake = undefined;
        if (!next || aborted(next.id)) continue;
        live.get(next.id)!.pending = undefined;
        const { settled } = next;
        if (settled.ok && !settled.result.done) {
          yield { kind: 'item', source: next.id, value: settled.result.value };
          continue;
        }
        live.delete(next.id);
        yield settled.ok ? { kind: 'done', source: next.id } : { kind: 'error', source: next.id, error: settled.error };
      }
    } finally {
      // The consumer stopped early (or every source ended): nothing may keep running.
      for (const [id, entry] of live) {
        controllers.get(id)!.abort();
        close(entry);
      }
    }
  }

  const iterator = events();
  return { [Symbol.asyncIterator]: () => iterator, abort };
}

function settle<T>(id: string, iterator: AsyncIterator<T>) {
  return iterator.next().then(
    (result): { id: string; settled: Settled<T> } => ({ id, settled: { ok: true, result } }),
    (error: unknown): { id: string; settled: Settled<T> } => ({ id, settled: { ok: false, error } }),
  );
}

/** Returns a source's iterator once its read in flight (if any) settles; its failure is moot. */
function close<T>(entry: Live<T>): void {
  void Promise.resolve(entry.pending)
    .then(() => entry.iterator.return?.())
    .catch(() => undefined);
}
