// What sits in front of dynalite's LevelDB, for the embedded DynamoDB's CPU.
//
// dynalite reads LevelDB synchronously on its one thread, and reads a lot: every operation
// reads its table's description, every write reads the item it replaces, and the streams layer
// (local/dynamodb-streams.mjs) reads it once more for the record's old image. And it writes
// each item on its own, one log write each. Profiled under the pinned benchmark, reads were a
// third of the database's CPU per gateway request and, once they were cached, writes a sixth.
//
// Reads: every read of a key this process has seen is answered from memory, and a key the
// database has never held is answered "absent" without asking LevelDB, so a write of a new item
// (a ledger entry, a cached answer) reads nothing. Writes: those made in one turn of the event
// loop reach LevelDB as one batch, in the order they were made.
//
// What stays true: LevelDB remains the store, and a write is answered only once LevelDB holds
// it, so a restart or a crash loses nothing it would not have lost. Range reads (Query, Scan)
// go to LevelDB as before. Reads answer a copy, as LevelDB's JSON decoding did, because dynalite
// changes the items it reads; table descriptions, read by every call, are the exception (see #tables).
//
// Its memory: every key (the set that makes "absent" exact), read once at start, and the
// values of the most recently used keys, at most VALUE_ENTRIES of them.
import { createRequire } from 'node:module';

const dynaliteRequire = createRequire(createRequire(import.meta.url).resolve('dynalite'));
// dynalite's own store module, the instance dynalite itself uses (as local/dynamodb-streams.mjs).
const dynaliteDb = dynaliteRequire('./db');

/** dynalite's sub-level of table descriptions (its getSubDb('table')). */
const TABLE_PREFIX = 'table~';

/** Values kept in memory by default, the least recently used dropped first; a JSON string each. */
export const VALUE_ENTRIES = 50_000;

/**
 * Hooks dynalite's store as it is created (call before `dynalite()`); the promise it returns
 * settles once every key is known, and no request may be served before it does.
 */
export function installLevelFront(valueEntries = VALUE_ENTRIES) {
  let settle;
  const ready = new Promise((resolve, reject) => (settle = { resolve, reject }));
  const create = dynaliteDb.create;
  dynaliteDb.create = function (options) {
    dynaliteDb.create = create;
    const store = create.call(this, options);
    const front = new LevelFront(store.db, valueEntries);
    front.load().then(settle.resolve, settle.reject);
    return store;
  };
  return ready;
}

/** Exported for its unit test, which drives it over a store whose writes finish when told. */
export class LevelFront {
  /** Every key the database may hold (deleted ones too): a key not in it is certainly absent. */
  #known = new Set();
  /** Key → the value as JSON, least recently used first. */
  #values = new Map();
  /**
   * Table descriptions, read by every operation: kept as the objects themselves, not copied.
   * Only dynalite's table actions change one, and they write it again at once.
   */
  #tables = new Map();
  /** Keys with a delete on its way to LevelDB → how many: absent to readers meanwhile. */
  #deleting = new Map();
  #db;
  #get;
  #capacity;

  /** Writes waiting for this turn of the event loop to end, to reach LevelDB as one batch. */
  #queue = [];
  #batch;

  constructor(db, capacity) {
    this.#capacity = capacity;
    this.#db = db;
    // dynalite's callback-style methods (its wrapWithCallbacks), wrapped once more.
    const { get, batch } = db;
    this.#get = get;
    this.#batch = batch;
    db.get = (key, callback) => this.#read(key, callback);
    db.put = (key, value, callback) => this.#write([{ type: 'put', key, value }], callback);
    db.del = (key, callback) => this.#write([{ type: 'del', key }], callback);
    db.batch = (operations, callback) => this.#write(operations, callback);
  }

  async load() {
    for await (const key of this.#db.keys()) this.#known.add(key);
  }

  #read(key, callback) {
    if (typeof callback !== 'function') return this.#get(key, callback);
    if (!this.#known.has(key)) return setImmediate(callback, null, undefined);
    const table = this.#tables.get(key);
    if (table !== undefined) return setImmediate(callback, null, table);
    const json = this.#values.get(key);
    if (json !== undefined) {
      this.#values.delete(key);
      this.#values.set(key, json);
      return setImmediate(callback, null, JSON.parse(json));
    }
    if (this.#deleting.has(key)) return setImmediate(callback, null, undefined);
    this.#get(key, (err, value) => {
      if (!err && value !== undefined) {
        if (key.startsWith(TABLE_PREFIX)) this.#tables.set(key, value);
        else this.#keep(key, JSON.stringify(value));
      }
      callback(err, value);
    });
  }

  /** Returns the value's JSON when it made one (every item; a table description is kept as is). */
  #wrote(key, value) {
    this.#known.add(key);
    if (key.startsWith(TABLE_PREFIX)) {
      this.#tables.set(key, value);
      return undefined;
    }
    const json = JSON.stringify(value);
    this.#keep(key, json);
    return json;
  }

  #keep(key, json) {
    this.#values.delete(key);
    this.#values.set(key, json);
    if (this.#values.size > this.#capacity) this.#values.delete(this.#values.keys().next().value);
  }

  /**
   * Takes a write: from now on reads see it, and it joins the batch this turn of the event loop
   * sends LevelDB, in the order the writes were made (one log write for all of them; LevelDB
   * applies a batch whole or not at all). Once LevelDB answers: a deleted key stays known
   * ("may be present" is always safe: LevelDB is asked), and a write that failed leaves its
   * keys' values to LevelDB, which may or may not hold them. Answers as dynalite's method
   * would: through the callback, or a promise without one.
   */
  #write(operations, callback) {
    const keys = [];
    const deleted = [];
    // What LevelDB is sent: an item's put carries the JSON made for the cache, as text, so the
    // database's JSON encoding does not make it again (the same bytes either way).
    const stored = operations.map((op) => {
      keys.push(op.key);
      if (op.type === 'del') {
        this.#values.delete(op.key);
        this.#tables.delete(op.key);
        deleted.push(op.key);
        this.#deleting.set(op.key, (this.#deleting.get(op.key) ?? 0) + 1);
        return op;
      }
      const json = this.#wrote(op.key, op.value);
      return json === undefined ? op : { ...op, value: json, valueEncoding: 'utf8' };
    });
    const settled = (err) => {
      for (const key of deleted) {
        const left = this.#deleting.get(key) - 1;
        if (left > 0) this.#deleting.set(key, left);
        else this.#deleting.delete(key);
      }
      if (err)
        for (const key of keys) {
          this.#values.delete(key);
          this.#tables.delete(key);
        }
    };
    const enqueue = (done) => {
      if (this.#queue.length === 0) setImmediate(() => this.#flush());
      this.#queue.push({ operations: stored, done });
    };
    if (typeof callback === 'function') {
      return enqueue((err) => {
        settled(err);
        callback(err);
      });
    }
    return new Promise((resolve, reject) =>
      enqueue((err) => {
        settled(err);
        if (err) reject(err);
        else resolve();
      }),
    );
  }

  #flush() {
    const queued = this.#queue.splice(0);
    const operations = queued.length === 1 ? queued[0].operations : queued.flatMap((write) => write.operations);
    this.#batch(operations, (err) => {
      for (const write of queued) write.done(err ?? null);
    });
  }
}
