// Types of local/dynamodb-level-front.mjs, for the TypeScript that drives it (tests).
export declare const VALUE_ENTRIES: number;
export declare function installLevelFront(valueEntries?: number): Promise<void>;

/** dynalite's callback-style store methods, as the front wraps them (values are JSON). */
export interface CallbackStore {
  get(key: string, callback: (err: Error | null, value?: unknown) => void): unknown;
  put(key: string, value: unknown, callback: (err: Error | null) => void): unknown;
  del(key: string, callback: (err: Error | null) => void): unknown;
  batch(operations: readonly unknown[], callback: (err: Error | null) => void): unknown;
  keys(): AsyncIterable<string>;
}

export declare class LevelFront {
  constructor(db: CallbackStore, capacity: number);
  load(): Promise<void>;
}
