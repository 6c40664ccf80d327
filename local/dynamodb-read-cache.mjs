// A read cache in front of dynalite's LevelDB, for the embedded DynamoDB's CPU.
//
// dynalite reads LevelDB synchronously on its one thread, and reads a lot: every operation
// reads its table's description, every write reads the item it replaces, and the streams layer
// (local/dynamodb-streams.mjs) reads it once more for the record's old image. Profiled under
// the pinned benchmark those reads were a third of the database's CPU per gateway request.
// Here every read of a key this process has seen is answered from memory, and a key the
// database has never held is answered "absent" without asking LevelDB, so a write of a new
// item (a ledger entry, a cached answer) costs no read at all.
//
// What stays true: LevelDB remains the store (every write still goes to it, in the same
// order, before dynalite's callback), so a restart or a crash loses nothing it would not have
// lost. Range reads (Query, Scan) go to LevelDB as before. Reads answer a copy, as LevelDB's
// JSON decoding did, because dynalite changes the items it reads.
//
// Its memory: every key (the set that makes "absent" exact), read once at start, and the
// values of the most recently used keys, at most VALUE_ENTRIES of them.
import { createRequire } from 'node:module';

const dynaliteRequire = createRequire(createRequire(import.meta.url).resolve('dynalite'));
// dynalite's own store module, the instance dynalite itself uses (as local/dynamodb-streams.mjs).
const dynaliteDb = dynaliteRequire('./db');

/** Values kept in memory by default, the least recently used dropped first; a JSON string each. */
export const VALUE_ENTRIES = 50_000;

/**
 * Hooks dynalite's store as it is created (call before `dynalite()`); the promise it returns
 * settles once every key is known, and no request may be served before it does.
 */
export function cacheReads(valueEntries = VALUE_ENTRIES) {
  let settle;
  const ready = new Promise((resolve, reject) => (settle = { resolve, reject }));
  const create = dynaliteDb.create;
  dynaliteDb.create = function (options) {
    dynaliteDb.create = create;
    const store = create.call(this, options);
    const cache = new ReadCache(store.db, valueEntries);
    cache.load().then(settle.resolve, settle.reject);
    return store;
  };
  return ready;
}

/** Exported for its unit test, which drives it over a store whose writes finish when told. */
export class ReadCache {
  /** Every key the database may hold (deleted ones too): a key not in it is certainly absent. */
  #known = new Set();
  /** Key → the value as JSON, least recently used first. */
  #values = new Map();
  /** Keys with a delete on its way to LevelDB → how many: absent to readers meanwhile. */
  #deleting = new Map();
  #db;
  #get;
  #capacity;

  constructor(db, capacity) {
    this.#capacity = capacity;
    this.#db = db;
    // dynalite's callback-style methods (its wrapWithCallbacks), wrapped once more.
    const { get, put, del, batch } = db;
    this.#get = get;
    db.get = (key, callback) => this.#read(key, callback);
    db.put = (key, value, callback) => {
      this.#wrote(key, value);
      return this.#write((done) => put(key, value, done), [key], [], callback);
    };
    db.del = (key, callback) => {
      this.#values.delete(key);
      return this.#write((done) => del(key, done), [], [key], callback);
    };
    db.batch = (operations, callback) => {
      const written = [];
      const deleted = [];
      for (const op of operations) {
        if (op.type === 'del') {
          this.#values.delete(op.key);
          deleted.push(op.key);
        } else {
          this.#wrote(op.key, op.value);
          written.push(op.key);
        }
      }
      return this.#write((done) => batch(operations, done), written, deleted, callback);
    };
  }

  async load() {
    for await (const key of this.#db.keys()) this.#known.add(key);
  }

  #read(key, callback) {
    if (typeof callback !== 'function') return this.#get(key, callback);
    if (!this.#known.has(key)) return setImmediate(callback, null, undefined);
    const json = this.#values.get(key);
    if (json !== undefined) {
      this.#values.delete(key);
      this.#values.set(key, json);
      return setImmediate(callback, null, JSON.parse(json));
    }
    if (this.#deleting.has(key)) return setImmediate(callback, null, undefined);
    this.#get(key, (err, value) => {
      if (!err && value !== undefined) this.#keep(key, JSON.stringify(value));
      callback(err, value);
    });
  }

  #wrote(key, value) {
    this.#known.add(key);
    this.#keep(key, JSON.stringify(value));
  }

  #keep(key, json) {
    this.#values.delete(key);
    this.#values.set(key, json);
    if (this.#values.size > this.#capacity) this.#values.delete(this.#values.keys().next().value);
  }

  /**
   * Runs a write and, once LevelDB answers, settles what it means here. A deleted key stays
   * known ("may be present" is always safe: LevelDB is asked), and a write that failed leaves
   * its keys' values to LevelDB, which may or may not hold them.
   * Answers as dynalite's method would: through the callback, or a promise without one.
   */
  #write(run, written, deleted, callback) {
    for (const key of deleted) this.#deleting.set(key, (this.#deleting.get(key) ?? 0) + 1);
    const settled = (err) => {
      for (const key of deleted) {
        const left = this.#deleting.get(key) - 1;
        if (left > 0) this.#deleting.set(key, left);
        else this.#deleting.delete(key);
      }
      if (err) for (const key of [...written, ...deleted]) this.#values.delete(key);
    };
    if (typeof callback === 'function') {
      return run((err, ...rest) => {
        settled(err);
        callback(err, ...rest);
      });
    }
    return new Promise((resolve, reject) =>
      run((err, value) => {
        settled(err);
        if (err) reject(err);
        else resolve(value);
      }),
    );
  }
}
