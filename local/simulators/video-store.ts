/**
 * The MiniMax fake's video state (tasks, files) lives as long as the process: each map keeps
 * at most this many entries, the oldest forgotten first, so a long benchmark cannot grow it
 * without bound. A forgotten task or file answers as an unknown one.
 */
export const MAX_REMEMBERED = 10_000;

export function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= MAX_REMEMBERED) break;
    map.delete(oldest);
  }
}

let sequence = 0;

/**
 * A fresh numeric-string id, as MiniMax's task and file ids are: 15 digits, below 2^53 so the
 * file API's int64 `file_id` survives JSON numbers.
 */
export function numericId(): string {
  sequence = (sequence + 1) % 1_000_000;
  return `${Date.now() % 1_000_000_000}${String(sequence).padStart(6, '0')}`.padStart(15, '1');
}
