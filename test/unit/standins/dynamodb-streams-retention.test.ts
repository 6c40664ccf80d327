import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ITERATOR_TTL_MS, RETENTION_MS, openStreams, type LocalStreams } from '../../../local/dynamodb-streams.mjs';

// The stream log in-process, on a clock the test moves: retention and iterator expiry are
// hours and minutes in AWS.
const TABLE = 'retained';
const TABLE_ARN = `arn:aws:dynamodb:us-east-1:000000000000:table/${TABLE}`;
const KEYS = [{ AttributeName: 'pk', KeyType: 'HASH' as const }];
let path: string;
let clock: number;
let streams: LocalStreams;

beforeEach(() => {
  path = mkdtempSync(join(tmpdir(), 'streams-retention-'));
  clock = Date.UTC(2026, 0, 1);
  streams = openStreams({ path, now: () => clock, shardCount: 1 });
});

afterEach(() => {
  streams.close();
  rmSync(path, { recursive: true, force: true });
});

const reopen = () => {
  streams.close();
  streams = openStreams({ path, now: () => clock, shardCount: 1 });
};

function write(pk: string): void {
  streams.changed(TABLE, undefined, { pk: { S: pk } });
}

function shardOf(arn: string): string {
  const described = streams.describeStream({ StreamArn: arn }) as {
    StreamDescription: { Shards: { ShardId: string }[] };
  };
  return described.StreamDescription.Shards[0]!.ShardId;
}

function read(iterator: string): { pks: string[]; sequenceNumbers: string[]; next?: string } {
  const answer = JSON.parse(streams.getRecordsText({ ShardIterator: iterator })) as {
    Records: { dynamodb: { Keys: { pk: { S: string } }; SequenceNumber: string } }[];
    NextShardIterator?: string;
  };
  return {
    pks: answer.Records.map((r) => r.dynamodb.Keys.pk.S),
    sequenceNumbers: answer.Records.map((r) => r.dynamodb.SequenceNumber),
    next: answer.NextShardIterator,
  };
}

/** Pages until an empty one: a page may stop early (at a file's end), as AWS's may. */
function readAll(iterator: string): string[] {
  const pks: string[] = [];
  for (let page = read(iterator); ; page = read(page.next!)) {
    pks.push(...page.pks);
    if (page.pks.length === 0 || !page.next) return pks;
  }
}

const horizon = (arn: string) =>
  streams.getShardIterator({ StreamArn: arn, ShardId: shardOf(arn), ShardIteratorType: 'TRIM_HORIZON' }).ShardIterator;

test('records older than 24 hours are gone, with their files; reading at them is refused as trimmed', () => {
  const { arn } = streams.enable(TABLE, TABLE_ARN, KEYS, 'NEW_IMAGE');
  write('old-1');
  write('old-2');
  const old = read(horizon(arn));
  expect(old.pks).toEqual(['old-1', 'old-2']);
  // A later segment: the first one holds only the old records.
  clock += 2 * 60 * 60_000;
  write('new-1');
  const files = () =>
    readdirSync(
      join(
        path,
        readdirSync(path).find((f) => f !== 'streams.json')!,
        '0',
      ),
    );
  expect(files()).toHaveLength(2);

  clock += RETENTION_MS - 60 * 60_000;
  streams.trimExpired();
  expect(read(horizon(arn)).pks).toEqual(['new-1']);
  expect(files()).toHaveLength(1);
  expect(() =>
    streams.getShardIterator({
      StreamArn: arn,
      ShardId: shardOf(arn),
      ShardIteratorType: 'AT_SEQUENCE_NUMBER',
      SequenceNumber: old.sequenceNumbers[0],
    }),
  ).toThrow(expect.objectContaining({ type: 'TrimmedDataAccessException' }));

  // Every record gone: the numbering still goes on after a restart, never reusing a number.
  clock += 3 * 60 * 60_000;
  streams.trimExpired();
  expect(read(horizon(arn)).pks).toEqual([]);
  reopen();
  write('after-restart');
  expect(readAll(horizon(arn))).toEqual(['after-restart']);
  const fresh = read(horizon(arn));
  expect(fresh.pks).toEqual(['after-restart']);
  expect(BigInt(fresh.sequenceNumbers[0]!)).toBeGreaterThan(BigInt(old.sequenceNumbers[1]!) + 1n);
});

test('an iterator expires after 15 minutes', () => {
  const { arn } = streams.enable(TABLE, TABLE_ARN, KEYS, 'NEW_IMAGE');
  const iterator = horizon(arn);
  clock += ITERATOR_TTL_MS + 1;
  expect(() => read(iterator)).toThrow(expect.objectContaining({ type: 'ExpiredIteratorException' }));
});

test('a record torn by a crash mid-append is cut off at the next start; the ones before it stay', () => {
  const { arn } = streams.enable(TABLE, TABLE_ARN, KEYS, 'NEW_IMAGE');
  write('whole-1');
  write('whole-2');
  streams.close();
  const folder = join(
    path,
    readdirSync(path).find((f) => f !== 'streams.json')!,
    '0',
  );
  const [segment] = readdirSync(folder);
  appendFileSync(join(folder, segment!), '{"awsRegion":"us-east-1","dynamodb":{"Approx');
  reopen();
  expect(read(horizon(arn)).pks).toEqual(['whole-1', 'whole-2']);
  write('whole-3');
  expect(readAll(horizon(arn))).toEqual(['whole-1', 'whole-2', 'whole-3']);
});

test('a disabled stream ends its shards, and is forgotten 24 hours later', () => {
  const { arn } = streams.enable(TABLE, TABLE_ARN, KEYS, 'NEW_IMAGE');
  write('kept');
  streams.disable(TABLE);
  write('not recorded');
  const last = read(horizon(arn));
  expect(last.pks).toEqual(['kept']);
  expect(last.next).toBeUndefined();
  clock += RETENTION_MS + 1;
  streams.trimExpired();
  expect((streams.listStreams({}) as { Streams: unknown[] }).Streams).toEqual([]);
  expect(readdirSync(path)).toEqual(['streams.json']);
});
