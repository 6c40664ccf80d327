// DynamoDB Streams for the embedded DynamoDB. dynalite has none, so this module adds them in
// the dynalite child (local/dynamodb-child.mjs), in three parts:
//
// - Capture: every item write dynalite makes to a table with a stream is seen where it lands
//   (dynalite's item store, inside its per-item lock), with the item before and after, so
//   batch writes and the transaction layer's writes are seen like any other and per-item order
//   is the order of the writes themselves.
// - Transactions: the transaction layer (local/dynamodb-transactions.mjs) applies actions one
//   by one and undoes them when one fails. While a transaction holds a table, that table's
//   changes are held back; when the transaction answers, a committed one's net change per item
//   is recorded and a cancelled one's changes are dropped, so a rolled-back write never
//   appears (as in DynamoDB, which records a transaction's items only when it commits).
// - The Streams API (ListStreams, DescribeStream, GetShardIterator, GetRecords) on a port of its
//   own, as AWS serves it from its own endpoint (streams.dynamodb.<region>.amazonaws.com), so
//   the DynamoDB port's latency, throughput and call-log layers never see stream polling.
//
// Records are kept per shard in append-only files under the streams folder, each line one
// record exactly as GetRecords answers it, and read back from the files; memory holds only an
// index (sequence number, time, file offset). A record is appended before the write that made
// it is answered, so a write a caller saw succeed is in the stream after any restart. Records
// are kept 24 hours, as in AWS. Shards: a fixed number per stream, by partition key hash, so
// one item's records stay in order in one shard; they are never split or closed while the
// stream is enabled (AWS rolls shards over every few hours; readers that follow
// NextShardIterator and DescribeStream see no difference).
import { createHash, hash, randomBytes, randomUUID } from 'node:crypto';
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { replay } from './dynamodb-replayed-call.mjs';
import { INTERNAL_HEADER } from './dynamodb-transactions.mjs';

const dynaliteRequire = createRequire(createRequire(import.meta.url).resolve('dynalite'));
// dynalite's own store module: the instance dynalite itself uses, so its `create` can be hooked.
const dynaliteDb = dynaliteRequire('./db');

export const STREAMS_TARGET_PREFIX = 'DynamoDBStreams_20120810.';
const DYNAMODB_TARGET_PREFIX = 'DynamoDB_20120810.';
/** Shards per stream: records of one partition key always land in the same one. */
export const SHARD_COUNT = 4;
/** How long records are kept, as in AWS. */
export const RETENTION_MS = 24 * 60 * 60_000;
/** GetRecords answers at most this many records (AWS's bound) ... */
export const MAX_RECORDS_PER_CALL = 1000;
/** ... and about this many bytes (AWS's 1 MB), at least one record. */
const MAX_BYTES_PER_CALL = 1024 * 1024;
/** A shard iterator is valid this long, as in AWS. */
export const ITERATOR_TTL_MS = 15 * 60_000;
/** A segment file is closed for appends at this size or age; whole segments are deleted once expired. */
const SEGMENT_BYTES = 8 * 1024 * 1024;
const SEGMENT_MS = 60 * 60_000;
/** The largest Streams API request body: every valid one is far smaller. */
const MAX_REQUEST_BYTES = 64 * 1024;
/** Sequence numbers are 21 decimal digits (AWS: 21 to 40), numeric and string order alike. */
const SEQUENCE_BASE = 10n ** 20n;
const STATE_FILE = 'streams.json';
const VIEW_TYPES = new Set(['KEYS_ONLY', 'NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES']);
const ITEM_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
const ERROR_NAMESPACE = 'com.amazonaws.dynamodb.v20120810#';

export class StreamsError extends Error {
  constructor(type, message, status = 400) {
    super(message);
    this.type = type;
    this.status = status;
  }
}

const validation = (message) => new StreamsError('ValidationException', message);
const notFound = (message) => new StreamsError('ResourceNotFoundException', message);

const sequenceNumber = (counter) => String(SEQUENCE_BASE + BigInt(counter));

/**
 * The streams of one embedded DynamoDB, persisted under `path`.
 * @param {{ path: string, now?: () => number, region?: string, shardCount?: number }} options
 */
export function openStreams(options) {
  return new Streams(options);
}

class Streams {
  #path;
  #now;
  #region;
  #shardCount;
  /** Every stream kept (enabled, or disabled less than the retention ago), by ARN. */
  #byArn = new Map();
  /** The enabled stream of each table. */
  #byTable = new Map();
  /** Tables whose writes are the current transaction's, with the number of its writes in flight. */
  #transactionWrites = new Map();
  /** Changes held back while a transaction holds their table, by table. */
  #held = new Map();

  constructor({ path, now = Date.now, region = 'us-east-1', shardCount = SHARD_COUNT }) {
    this.#path = path;
    this.#now = now;
    this.#region = region;
    this.#shardCount = shardCount;
    mkdirSync(path, { recursive: true });
    const state = readState(join(path, STATE_FILE));
    for (const meta of state.streams) {
      const stream = new Stream(meta, join(path, streamFolder(meta.arn)));
      this.#byArn.set(stream.arn, stream);
      if (stream.enabled) this.#byTable.set(stream.tableName, stream);
    }
    this.trimExpired();
  }

  /** Whether writes to `tableName` are recorded. */
  captures(tableName) {
    return this.#byTable.has(tableName);
  }

  get any() {
    return this.#byTable.size > 0 || this.#held.size > 0;
  }

  /** The table's enabled stream, as DescribeTable shows it, or undefined. */
  tableFields(tableName) {
    const stream = this.#byTable.get(tableName);
    if (!stream) return undefined;
    return {
      StreamSpecification: { StreamEnabled: true, StreamViewType: stream.viewType },
      LatestStreamArn: stream.arn,
      LatestStreamLabel: stream.label,
    };
  }

  enable(tableName, tableArn, keySchema, viewType) {
    if (!VIEW_TYPES.has(viewType)) throw validation(`StreamViewType must be one of ${[...VIEW_TYPES].join(', ')}`);
    const existing = this.#byTable.get(tableName);
    if (existing) throw validation(`Table already has an enabled stream: TableName: ${tableName}`);
    const createdMs = this.#now();
    let label = new Date(createdMs).toISOString().slice(0, -1);
    // Two streams of one table in the same millisecond (tests): labels must differ.
    while (this.#byArn.has(`${tableArn}/stream/${label}`)) label = `${label.slice(0, -3)}${randomDigits(3)}`;
    const arn = `${tableArn}/stream/${label}`;
    const meta = {
      arn,
      label,
      tableName,
      viewType,
      keySchema,
      createdMs,
      nextCounter: 0,
      shards: Array.from({ length: this.#shardCount }, (_, i) => ({
        id: `shardId-${String(createdMs).padStart(20, '0')}-${createHash('sha256').update(`${arn}#${i}`).digest('hex').slice(0, 8)}`,
        trimmedThrough: -1,
      })),
    };
    const stream = new Stream(meta, join(this.#path, streamFolder(arn)));
    this.#byArn.set(arn, stream);
    this.#byTable.set(tableName, stream);
    this.#save();
    return stream;
  }

  disable(tableName) {
    const stream = this.#byTable.get(tableName);
    if (!stream) return false;
    stream.disable(this.#now());
    this.#byTable.delete(tableName);
    this.#save();
    return true;
  }

  // ---- capture ----

  /** A write to `tableName` by a transaction's action starts; its change is held back. */
  transactionWriteStarted(tableName) {
    this.#transactionWrites.set(tableName, (this.#transactionWrites.get(tableName) ?? 0) + 1);
  }

  transactionWriteEnded(tableName) {
    const left = (this.#transactionWrites.get(tableName) ?? 1) - 1;
    if (left > 0) this.#transactionWrites.set(tableName, left);
    else this.#transactionWrites.delete(tableName);
  }

  /**
   * An item of `tableName` was written: `before` and `after` are undefined when absent. Called
   * inside dynalite's item lock, before the write is answered.
   */
  changed(tableName, before, after) {
    if (!this.#byTable.has(tableName)) return;
    if (this.#transactionWrites.has(tableName)) {
      let held = this.#held.get(tableName);
      if (!held) this.#held.set(tableName, (held = []));
      held.push({ before, after });
      return;
    }
    this.#record(tableName, before, after);
  }

  /**
   * A transaction over `tables` answered. Its changes are recorded when it committed, one
   * record per item for its net change, and dropped when it was cancelled.
   */
  settle(tables, committed) {
    for (const tableName of new Set(tables)) {
      const held = this.#held.get(tableName);
      if (!held) continue;
      this.#held.delete(tableName);
      if (!committed || !this.#byTable.has(tableName)) continue;
      const stream = this.#byTable.get(tableName);
      const net = new Map();
      for (const { before, after } of held) {
        const id = stream.itemId(before ?? after);
        const known = net.get(id);
        if (known) known.after = after;
        else net.set(id, { before, after });
      }
      for (const { before, after } of net.values()) this.#record(tableName, before, after);
    }
  }

  #record(tableName, before, after) {
    if (!before && !after) return; // made and undone within one transaction
    if (before && after && canonical(before) === canonical(after)) return; // no change, no record (as in AWS)
    this.#byTable.get(tableName).append(before, after, this.#now(), this.#region);
  }

  // ---- the Streams API ----

  listStreams(input) {
    const limit = optionalInteger(input, 'Limit', 1, 100) ?? 100;
    const tableName = optionalString(input, 'TableName');
    const start = optionalString(input, 'ExclusiveStartStreamArn');
    const all = [...this.#byArn.values()]
      .filter((stream) => tableName === undefined || stream.tableName === tableName)
      .sort((a, b) => (a.arn < b.arn ? -1 : a.arn > b.arn ? 1 : 0))
      .filter((stream) => start === undefined || stream.arn > start);
    const page = all.slice(0, limit);
    return {
      Streams: page.map((s) => ({ StreamArn: s.arn, TableName: s.tableName, StreamLabel: s.label })),
      ...(all.length > limit ? { LastEvaluatedStreamArn: page.at(-1).arn } : {}),
    };
  }

  describeStream(input) {
    const stream = this.#stream(input);
    const limit = optionalInteger(input, 'Limit', 1, 100) ?? 100;
    const start = optionalString(input, 'ExclusiveStartShardId');
    this.trimExpired();
    const all = stream.shards.filter((shard) => start === undefined || shard.id > start);
    const page = all.slice(0, limit);
    return {
      StreamDescription: {
        StreamArn: stream.arn,
        StreamLabel: stream.label,
        StreamStatus: stream.enabled ? 'ENABLED' : 'DISABLED',
        StreamViewType: stream.viewType,
        CreationRequestDateTime: stream.createdMs / 1000,
        TableName: stream.tableName,
        KeySchema: stream.keySchema,
        Shards: page.map((shard) => ({
          ShardId: shard.id,
          SequenceNumberRange: {
            StartingSequenceNumber: sequenceNumber(shard.startCounter()),
            ...(stream.enabled ? {} : { EndingSequenceNumber: sequenceNumber(shard.endCounter()) }),
          },
        })),
        ...(all.length > limit ? { LastEvaluatedShardId: page.at(-1).id } : {}),
      },
    };
  }

  getShardIterator(input) {
    const stream = this.#stream(input);
    const shard = stream.shard(requireString(input, 'ShardId'));
    const type = requireString(input, 'ShardIteratorType');
    const given = optionalString(input, 'SequenceNumber');
    const needsNumber = type === 'AT_SEQUENCE_NUMBER' || type === 'AFTER_SEQUENCE_NUMBER';
    if (needsNumber !== (given !== undefined)) {
      throw validation(
        needsNumber
          ? `SequenceNumber is required for ShardIteratorType ${type}`
          : `SequenceNumber may only be given with AT_SEQUENCE_NUMBER or AFTER_SEQUENCE_NUMBER`,
      );
    }
    this.trimExpired();
    let position;
    if (type === 'TRIM_HORIZON') position = shard.trimmedThrough + 1;
    else if (type === 'LATEST') position = stream.nextCounter;
    else if (needsNumber) {
      const counter = counterOf(given);
      if (counter >= stream.nextCounter) throw validation(`SequenceNumber ${given} is beyond the end of the stream`);
      position = type === 'AT_SEQUENCE_NUMBER' ? counter : counter + 1;
      if (position <= shard.trimmedThrough) throw trimmed(stream, shard);
    } else {
      throw validation(
        `ShardIteratorType must be one of TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER (got ${JSON.stringify(type)})`,
      );
    }
    return { ShardIterator: encodeIterator(stream.arn, shard.id, position, this.#now()) };
  }

  /** The answer's JSON text: records are copied from their files as they are. */
  getRecordsText(input) {
    const limit = optionalInteger(input, 'Limit', 1, MAX_RECORDS_PER_CALL) ?? MAX_RECORDS_PER_CALL;
    const iterator = decodeIterator(requireString(input, 'ShardIterator'));
    const now = this.#now();
    if (now - iterator.issuedMs > ITERATOR_TTL_MS || iterator.issuedMs > now + ITERATOR_TTL_MS) {
      throw new StreamsError(
        'ExpiredIteratorException',
        `Iterator expired. The iterator was created at time ${new Date(iterator.issuedMs).toISOString()} while right now it is ${new Date(now).toISOString()}. The iterator is valid for 15 minutes.`,
      );
    }
    const stream = this.#byArn.get(iterator.arn);
    if (!stream) throw notFound(`Requested resource not found: Stream: ${iterator.arn} not found`);
    const shard = stream.shard(iterator.shardId);
    this.trimExpired();
    if (iterator.position <= shard.trimmedThrough) throw trimmed(stream, shard);
    const { lines, next } = shard.read(iterator.position, limit);
    const closedAndRead = !stream.enabled && next >= stream.nextCounter;
    const tail = closedAndRead
      ? ''
      : `,"NextShardIterator":${JSON.stringify(encodeIterator(stream.arn, shard.id, next, now))}`;
    return `{"Records":[${lines.join(',')}]${tail}}`;
  }

  /** Drops records older than the retention, and streams disabled longer ago than that. */
  trimExpired() {
    const cutoff = this.#now() - RETENTION_MS;
    let changed = false;
    for (const stream of [...this.#byArn.values()]) {
      if (!stream.enabled && stream.disabledMs < cutoff) {
        stream.remove();
        this.#byArn.delete(stream.arn);
        changed = true;
        continue;
      }
      if (stream.trim(cutoff)) changed = true;
    }
    if (changed) this.#save();
  }

  #stream(input) {
    const arn = requireString(input, 'StreamArn');
    const stream = this.#byArn.get(arn);
    if (!stream) throw notFound(`Requested resource not found: Stream: ${arn} not found`);
    return stream;
  }

  #save() {
    const file = join(this.#path, STATE_FILE);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ version: 1, streams: [...this.#byArn.values()].map((s) => s.meta()) }));
    renameSync(temp, file);
  }

  close() {
    for (const stream of this.#byArn.values()) stream.close();
  }
}

class Stream {
  #meta;
  #folder;

  constructor(meta, folder) {
    this.#meta = meta;
    this.#folder = folder;
    this.shards = meta.shards.map((shardMeta, i) => new Shard(shardMeta, join(folder, String(i))));
    // A counter is never used twice: the highest on disk, or the one saved when records were deleted.
    this.nextCounter = Math.max(meta.nextCounter, ...this.shards.map((shard) => shard.endCounter() + 1));
  }

  get arn() {
    return this.#meta.arn;
  }
  get label() {
    return this.#meta.label;
  }
  get tableName() {
    return this.#meta.tableName;
  }
  get viewType() {
    return this.#meta.viewType;
  }
  get keySchema() {
    return this.#meta.keySchema;
  }
  get createdMs() {
    return this.#meta.createdMs;
  }
  get enabled() {
    return this.#meta.disabledMs === undefined;
  }
  get disabledMs() {
    return this.#meta.disabledMs;
  }

  meta() {
    return {
      ...this.#meta,
      nextCounter: this.nextCounter,
      shards: this.shards.map((shard) => ({ id: shard.id, trimmedThrough: shard.trimmedThrough })),
    };
  }

  disable(now) {
    this.#meta.disabledMs = now;
    for (const shard of this.shards) shard.closeAppends();
  }

  shard(id) {
    const shard = this.shards.find((s) => s.id === id);
    if (!shard) throw notFound(`Requested resource not found: Shard: ${id} in Stream: ${this.arn} not found`);
    return shard;
  }

  /** One item's identity within the table: its key attributes. */
  itemId(item) {
    return canonical(this.#keys(item));
  }

  #keys(item) {
    return Object.fromEntries(this.keySchema.map(({ AttributeName }) => [AttributeName, item[AttributeName]]));
  }

  append(before, after, now, region) {
    const image = after ?? before;
    const keys = this.#keys(image);
    const hashName = this.keySchema.find((k) => k.KeyType === 'HASH').AttributeName;
    const shard = this.shards[shardOf(image[hashName], this.shards.length)];
    const counter = this.nextCounter++;
    const view = this.viewType;
    const newImage = after && (view === 'NEW_IMAGE' || view === 'NEW_AND_OLD_IMAGES') ? after : undefined;
    const oldImage = before && (view === 'OLD_IMAGE' || view === 'NEW_AND_OLD_IMAGES') ? before : undefined;
    const record = {
      awsRegion: region,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(now / 1000),
        Keys: keys,
        ...(newImage ? { NewImage: newImage } : {}),
        ...(oldImage ? { OldImage: oldImage } : {}),
        SequenceNumber: sequenceNumber(counter),
        SizeBytes: sizeOf(keys) + (newImage ? sizeOf(newImage) : 0) + (oldImage ? sizeOf(oldImage) : 0),
        StreamViewType: view,
      },
      // 32 random hex digits, as AWS's; randomUUID draws from a pool, randomBytes makes a call each time.
      eventID: randomUUID().replaceAll('-', ''),
      eventName: !before ? 'INSERT' : after ? 'MODIFY' : 'REMOVE',
      eventSource: 'aws:dynamodb',
      eventVersion: '1.1',
    };
    shard.append(counter, now, JSON.stringify(record));
  }

  trim(cutoff) {
    let changed = false;
    for (const shard of this.shards) if (shard.trim(cutoff)) changed = true;
    return changed;
  }

  remove() {
    this.close();
    rmSync(this.#folder, { recursive: true, force: true });
  }

  close() {
    for (const shard of this.shards) shard.closeAppends();
  }
}

/**
 * One shard's records: files named by the counter of their first record, and in memory, per
 * record, its counter, time, file and place in the file. `base` is the first record kept.
 */
class Shard {
  #folder;
  #segments = [];
  #counters = [];
  #times = [];
  #segmentOf = [];
  #offsets = [];
  #lengths = [];
  #base = 0;
  #appendFd;

  constructor(meta, folder) {
    this.id = meta.id;
    this.trimmedThrough = meta.trimmedThrough;
    this.#folder = folder;
    mkdirSync(folder, { recursive: true });
    const files = readdirSync(folder)
      .filter((name) => /^\d+\.jsonl$/.test(name))
      .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
    for (const name of files) this.#load(join(folder, name));
  }

  /** Reads one segment back; a last line torn by a crash mid-append is cut off. */
  #load(file) {
    const text = readFileSync(file);
    const end = text.lastIndexOf(0x0a) + 1;
    if (end < text.length) {
      const fd = openSync(file, 'r+');
      ftruncateSync(fd, end);
      closeSync(fd);
    }
    const segment = { file, bytes: end, openedMs: Number.POSITIVE_INFINITY, last: -1 };
    let offset = 0;
    while (offset < end) {
      const lineEnd = text.indexOf(0x0a, offset);
      const record = JSON.parse(text.toString('utf8', offset, lineEnd));
      const counter = Number(BigInt(record.dynamodb.SequenceNumber) - SEQUENCE_BASE);
      this.#push(counter, record.dynamodb.ApproximateCreationDateTime * 1000, segment, offset, lineEnd - offset);
      offset = lineEnd + 1;
    }
    if (segment.bytes === 0) rmSync(file, { force: true });
    else this.#segments.push(segment);
  }

  #push(counter, time, segment, offset, length) {
    this.#counters.push(counter);
    this.#times.push(time);
    this.#segmentOf.push(segment);
    this.#offsets.push(offset);
    this.#lengths.push(length);
    segment.last = counter;
  }

  /** The counter the shard's first kept record has, or would have. */
  startCounter() {
    return this.#base < this.#counters.length ? this.#counters[this.#base] : this.trimmedThrough + 1;
  }

  endCounter() {
    return this.#counters.length > 0 ? this.#counters.at(-1) : this.trimmedThrough;
  }

  append(counter, now, line) {
    let segment = this.#segments.at(-1);
    if (
      this.#appendFd === undefined ||
      segment === undefined ||
      segment.bytes >= SEGMENT_BYTES ||
      now - segment.openedMs >= SEGMENT_MS
    ) {
      this.closeAppends();
      segment = { file: join(this.#folder, `${counter}.jsonl`), bytes: 0, openedMs: now, last: counter };
      this.#appendFd = openSync(segment.file, 'a');
      this.#segments.push(segment);
    }
    const bytes = Buffer.from(`${line}\n`);
    // Synchronous: on disk (in the page cache) before the write that made it is answered.
    writeSync(this.#appendFd, bytes);
    this.#push(counter, now, segment, segment.bytes, bytes.length - 1);
    segment.bytes += bytes.length;
  }

  closeAppends() {
    if (this.#appendFd !== undefined) closeSync(this.#appendFd);
    this.#appendFd = undefined;
  }

  /** Up to `limit` records from the first with a counter at or after `position`, from one file. */
  read(position, limit) {
    let low = this.#base;
    let high = this.#counters.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#counters[mid] < position) low = mid + 1;
      else high = mid;
    }
    if (low === this.#counters.length) return { lines: [], next: Math.max(position, this.endCounter() + 1) };
    const segment = this.#segmentOf[low];
    let last = low;
    let bytes = this.#lengths[low];
    while (
      last + 1 < this.#counters.length &&
      last + 1 - low < limit &&
      this.#segmentOf[last + 1] === segment &&
      bytes + this.#lengths[last + 1] + 1 <= MAX_BYTES_PER_CALL
    ) {
      last++;
      bytes += this.#lengths[last] + 1;
    }
    const start = this.#offsets[low];
    const buffer = Buffer.alloc(this.#offsets[last] + this.#lengths[last] - start);
    const fd = openSync(segment.file, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, start);
    } finally {
      closeSync(fd);
    }
    const lines = [];
    for (let i = low; i <= last; i++) {
      const from = this.#offsets[i] - start;
      lines.push(buffer.toString('utf8', from, from + this.#lengths[i]));
    }
    return { lines, next: this.#counters[last] + 1 };
  }

  /** Forgets records older than `cutoff`, and deletes the files holding only such; true if any was. */
  trim(cutoff) {
    let base = this.#base;
    while (base < this.#times.length && this.#times[base] < cutoff) base++;
    if (base === this.#base) return false;
    this.trimmedThrough = this.#counters[base - 1];
    this.#base = base;
    while (this.#segments.length > 0 && this.#segments[0].last <= this.trimmedThrough) {
      const [gone] = this.#segments.splice(0, 1);
      if (this.#segments.length === 0) this.closeAppends();
      rmSync(gone.file, { force: true });
    }
    // Compact the index now and then, not on every trim.
    if (this.#base > 1024 && this.#base * 2 > this.#counters.length) {
      for (const list of [this.#counters, this.#times, this.#segmentOf, this.#offsets, this.#lengths])
        list.splice(0, this.#base);
      this.#base = 0;
    }
    return true;
  }
}

function trimmed(stream, shard) {
  return new StreamsError(
    'TrimmedDataAccessException',
    `The requested position is beyond the trim horizon of shard ${shard.id} of stream ${stream.arn}: its records were older than 24 hours and are gone`,
  );
}

function readState(file) {
  if (!existsSync(file)) return { version: 1, streams: [] };
  const state = JSON.parse(readFileSync(file, 'utf8'));
  if (state?.version !== 1 || !Array.isArray(state.streams)) throw new Error(`${file}: not a streams state file`);
  return state;
}

const streamFolder = (arn) => createHash('sha256').update(arn).digest('hex').slice(0, 16);

const randomDigits = (n) =>
  Array.from(randomBytes(n), (byte) => byte % 10)
    .join('')
    .slice(0, n);

function shardOf(keyValue, count) {
  return hash('md5', canonical(keyValue), 'buffer').readUInt32BE(0) % count;
}

function sizeOf(item) {
  return dynaliteDb.itemSize(item);
}

/** JSON with object keys sorted, so equal items compare equal whatever their attribute order. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function counterOf(text) {
  if (!/^\d{21,40}$/.test(text)) throw validation(`Invalid SequenceNumber: ${JSON.stringify(text)}`);
  const counter = BigInt(text) - SEQUENCE_BASE;
  if (counter < 0n || counter > BigInt(Number.MAX_SAFE_INTEGER))
    throw validation(`Invalid SequenceNumber: ${JSON.stringify(text)}`);
  return Number(counter);
}

function encodeIterator(arn, shardId, position, issuedMs) {
  return Buffer.from(JSON.stringify([1, arn, shardId, position, issuedMs])).toString('base64url');
}

function decodeIterator(text) {
  let parts;
  try {
    parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parts = undefined;
  }
  const [version, arn, shardId, position, issuedMs] = Array.isArray(parts) ? parts : [];
  if (
    version !== 1 ||
    typeof arn !== 'string' ||
    typeof shardId !== 'string' ||
    !Number.isSafeInteger(position) ||
    !Number.isFinite(issuedMs)
  ) {
    throw validation('Invalid ShardIterator');
  }
  return { arn, shardId, position, issuedMs };
}

function requireString(input, field) {
  const value = input[field];
  if (typeof value !== 'string' || value === '') throw validation(`${field} is required and must be a string`);
  return value;
}

function optionalString(input, field) {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') throw validation(`${field} must be a non-empty string`);
  return value;
}

function optionalInteger(input, field, min, max) {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw validation(
      `1 validation error detected: Value '${JSON.stringify(value)}' at '${field[0].toLowerCase()}${field.slice(1)}' failed to satisfy constraint: Member must be an integer from ${min} to ${max}`,
    );
  }
  return value;
}

// ---- capture in dynalite's item store ----

const HOOKED = Symbol('streams hook');

/**
 * Makes the next store dynalite creates report its item writes to `streams`. Call before
 * `dynalite(...)`: the store is made inside it and not reachable afterwards.
 */
export function captureItemWrites(streams) {
  const create = dynaliteDb.create;
  dynaliteDb.create = function (options) {
    dynaliteDb.create = create;
    const store = create.call(this, options);
    const getItemDb = store.getItemDb;
    store.getItemDb = (tableName) => {
      const itemDb = getItemDb(tableName);
      if (!itemDb[HOOKED]) hookItemDb(itemDb, tableName, streams);
      return itemDb;
    };
    return store;
  };
}

/**
 * dynalite writes an item with `put` or `del` while it holds the item's lock, after reading
 * it: reading it once more here gives the image before, and the order of writes is theirs.
 */
function hookItemDb(itemDb, tableName, streams) {
  const { get, put, del } = itemDb;
  itemDb[HOOKED] = true;
  const before = (key, then) =>
    get(key, (err, item) => {
      if (err && err.name !== 'NotFoundError' && err.code !== 'LEVEL_NOT_FOUND') return then(err);
      then(undefined, item ?? undefined);
    });
  itemDb.put = (key, item, cb) => {
    if (!streams.captures(tableName)) return put(key, item, cb);
    before(key, (err, old) => {
      if (err) return cb(err);
      put(key, item, (err) => cb(err ?? recorded(() => streams.changed(tableName, old, item))));
    });
  };
  itemDb.del = (key, cb) => {
    if (!streams.captures(tableName)) return del(key, cb);
    before(key, (err, old) => {
      if (err) return cb(err);
      del(key, (err) => cb(err ?? (old ? recorded(() => streams.changed(tableName, old, undefined)) : undefined)));
    });
  };
}

/**
 * A record that cannot be kept (the disk is full) fails the write's answer: the item is
 * written, and the caller, told it failed, writes it again, as after any lost answer.
 */
function recorded(record) {
  try {
    record();
    return undefined;
  } catch (error) {
    console.error('dynamodb streams: a change could not be recorded', error);
    return error;
  }
}

// ---- the DynamoDB port: stream settings of tables, transaction boundaries ----

/**
 * Wraps the request handler of `server` (outside the transaction layer): CreateTable and
 * UpdateTable take a StreamSpecification, DescribeTable shows it, DeleteTable disables the
 * stream, and a transaction's held changes are settled when it answers.
 */
export function addStreams(server, streams) {
  const [inner] = server.listeners('request');
  server.removeAllListeners('request');
  const pass = (req, res) => inner.call(server, req, res);
  server.on('request', (req, res) => {
    const target = req.headers['x-amz-target'];
    if (req.method !== 'POST' || typeof target !== 'string' || !target.startsWith(DYNAMODB_TARGET_PREFIX))
      return pass(req, res);
    const operation = target.slice(DYNAMODB_TARGET_PREFIX.length);
    if (req.headers[INTERNAL_HEADER] !== undefined) {
      if (!ITEM_WRITES.has(operation) || !streams.any) return pass(req, res);
      return withBody(req, res, (body, input) => {
        const tableName = input?.TableName;
        if (typeof tableName !== 'string' || !streams.captures(tableName)) return pass(replay(req, body), res);
        streams.transactionWriteStarted(tableName);
        beforeEnd(res, () => streams.transactionWriteEnded(tableName));
        pass(replay(req, body), res);
      });
    }
    switch (operation) {
      case 'TransactWriteItems':
        if (!streams.any) return pass(req, res);
        return withBody(req, res, (body, input) => {
          const tables = (Array.isArray(input?.TransactItems) ? input.TransactItems : []).flatMap((entry) =>
            ['Put', 'Update', 'Delete', 'ConditionCheck']
              .map((kind) => entry?.[kind]?.TableName)
              .filter((name) => typeof name === 'string'),
          );
          // The transaction layer answers while it still holds its tables: nothing else has
          // written them since its own writes.
          beforeEnd(res, () => recorded(() => streams.settle(tables, res.statusCode === 200)));
          pass(replay(req, body), res);
        });
      case 'CreateTable':
        return withBody(req, res, (body, input) => createTable(req, res, body, input, streams, pass));
      case 'UpdateTable':
        return withBody(req, res, (body, input) => updateTable(req, res, body, input, streams, pass));
      case 'DescribeTable':
        if (!streams.any) return pass(req, res);
        rewriteAnswer(res, (answer) => ({ Table: withStreamFields(answer.Table, streams) }));
        return pass(req, res);
      case 'DeleteTable':
        return withBody(req, res, (body, input) => {
          beforeEnd(res, () => {
            if (res.statusCode === 200 && typeof input?.TableName === 'string') streams.disable(input.TableName);
          });
          pass(replay(req, body), res);
        });
      default:
        return pass(req, res);
    }
  });
}

function streamSpecificationOf(input) {
  const spec = input?.StreamSpecification;
  if (spec === undefined || spec === null) return undefined;
  if (typeof spec !== 'object' || typeof spec.StreamEnabled !== 'boolean')
    throw validation('StreamSpecification.StreamEnabled is required and must be a boolean');
  if (spec.StreamEnabled && !VIEW_TYPES.has(spec.StreamViewType))
    throw validation(`StreamSpecification.StreamViewType must be one of ${[...VIEW_TYPES].join(', ')}`);
  return spec;
}

function createTable(req, res, _body, input, streams, pass) {
  let spec;
  try {
    spec = streamSpecificationOf(input);
  } catch (error) {
    return sendError(res, error);
  }
  if (!input || typeof input !== 'object') return pass(replay(req, _body), res);
  const { StreamSpecification: _dropped, ...rest } = input;
  rewriteAnswer(res, (answer) => {
    const table = answer.TableDescription;
    if (spec?.StreamEnabled) streams.enable(table.TableName, table.TableArn, table.KeySchema, spec.StreamViewType);
    return { TableDescription: withStreamFields(table, streams) };
  });
  pass(replay(req, JSON.stringify(rest)), res);
}

function updateTable(req, res, body, input, streams, pass) {
  let spec;
  try {
    spec = streamSpecificationOf(input);
    const tableName = input?.TableName;
    if (spec && typeof tableName === 'string') {
      const enabled = streams.captures(tableName);
      if (spec.StreamEnabled && enabled)
        throw validation(`Table already has an enabled stream: TableName: ${tableName}`);
      if (!spec.StreamEnabled && !enabled) throw validation(`Table ${tableName} has no enabled stream to disable`);
    }
  } catch (error) {
    return sendError(res, error);
  }
  if (!spec) return pass(replay(req, body), res);
  const { StreamSpecification: _dropped, ...rest } = input;
  const apply = (table) => {
    if (spec.StreamEnabled) streams.enable(table.TableName, table.TableArn, table.KeySchema, spec.StreamViewType);
    else streams.disable(table.TableName);
    return withStreamFields(table, streams);
  };
  if (Object.keys(rest).some((field) => field !== 'TableName')) {
    rewriteAnswer(res, (answer) => ({ TableDescription: apply(answer.TableDescription) }));
    return pass(replay(req, JSON.stringify(rest)), res);
  }
  // Only the stream changes, which dynalite knows nothing of: it describes the table.
  rewriteAnswer(res, (answer) => ({ TableDescription: apply(answer.Table) }));
  pass(
    replay(req, JSON.stringify({ TableName: rest.TableName }), {
      headers: { ...req.headers, 'x-amz-target': `${DYNAMODB_TARGET_PREFIX}DescribeTable` },
    }),
    res,
  );
}

function withStreamFields(table, streams) {
  if (!table || typeof table !== 'object') return table;
  const fields = streams.tableFields(table.TableName);
  return fields ? { ...table, ...fields } : table;
}

/** Reads the body (bounded by dynalite's own limit) and parses it; unparsable is undefined. */
function withBody(req, res, then) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('error', () => res.destroy());
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let input;
    try {
      input = JSON.parse(body);
    } catch {
      input = undefined;
    }
    then(body, input);
  });
}

/** Runs `then` when the answer is sent, before it leaves. */
function beforeEnd(res, then) {
  const end = res.end;
  res.end = function (...args) {
    res.end = end;
    then();
    return end.apply(this, args);
  };
}

/** Changes a successful JSON answer before it leaves; dynalite sets its headers just before. */
function rewriteAnswer(res, rewrite) {
  const end = res.end;
  res.end = function (body, ...rest) {
    res.end = end;
    if (res.statusCode !== 200 || body === undefined || res.headersSent) return end.call(this, body, ...rest);
    let text;
    try {
      text = JSON.stringify(rewrite(JSON.parse(String(body))));
    } catch (error) {
      const failure =
        error instanceof StreamsError ? error : new StreamsError('InternalServerError', String(error), 500);
      res.statusCode = failure.status;
      text = JSON.stringify({ __type: `${ERROR_NAMESPACE}${failure.type}`, message: failure.message });
    }
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.setHeader('x-amz-crc32', crc32(text));
    return end.call(this, text);
  };
}

function sendError(res, error) {
  const failure = error instanceof StreamsError ? error : new StreamsError('InternalServerError', String(error), 500);
  send(res, failure.status, JSON.stringify({ __type: `${ERROR_NAMESPACE}${failure.type}`, message: failure.message }));
}

function send(res, status, text) {
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    'x-amz-crc32': crc32(text),
    'x-amzn-requestid': randomBytes(26).toString('hex').toUpperCase(),
  });
  res.end(text);
}

// ---- the Streams API's own port ----

/**
 * The DynamoDB Streams API over AWS's JSON 1.0 protocol (target prefix
 * `DynamoDBStreams_20120810.`). Like the embedded DynamoDB it does not check signatures.
 * @returns {import('node:http').Server}
 */
export function createStreamsApiServer(streams) {
  const operations = {
    ListStreams: (input) => JSON.stringify(streams.listStreams(input)),
    DescribeStream: (input) => JSON.stringify(streams.describeStream(input)),
    GetShardIterator: (input) => JSON.stringify(streams.getShardIterator(input)),
    GetRecords: (input) => streams.getRecordsText(input),
  };
  return createServer((req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.startsWith(STREAMS_TARGET_PREFIX)
      ? operations[target.slice(STREAMS_TARGET_PREFIX.length)]
      : undefined;
    if (req.method !== 'POST' || !Object.values(operations).includes(operation)) {
      req.resume();
      return send(
        res,
        400,
        JSON.stringify({
          __type: 'com.amazon.coral.service#UnknownOperationException',
          message: `unknown operation ${JSON.stringify(target)}`,
        }),
      );
    }
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      try {
        if (size > MAX_REQUEST_BYTES) throw validation(`request body larger than ${MAX_REQUEST_BYTES} bytes`);
        let input;
        try {
          input = size === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          throw new StreamsError('SerializationException', 'request body is not valid JSON');
        }
        if (!input || typeof input !== 'object' || Array.isArray(input))
          throw new StreamsError('SerializationException', 'request body must be a JSON object');
        send(res, 200, operation(input));
      } catch (error) {
        sendError(res, error);
      }
    });
  });
}
