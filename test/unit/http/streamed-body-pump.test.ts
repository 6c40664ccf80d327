import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pump } from '../../../lambdas/http/streamify-execution.js';

/**
 * Streamed bodies are pumped into the response stream without stream.pipeline (its machinery
 * cost more than the frames). `pipeline` is the oracle: for each way a stream can go, the
 * client-visible outcome (bytes written, whether the response ended or was cut, the error the
 * handler sees) and the producer's cleanup are the same.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Outcome {
  written: string[];
  ended: boolean;
  destroyedWith?: string;
  rejectedWith?: string;
  /** Whether the producer had stopped when the handler learnt of the failure. */
  stoppedBeforeRejection?: boolean;
  producerFinally: boolean;
  producedAfterStop: number;
}

type Connect = (body: Readable, out: Writable) => Promise<void>;

/** A response stream like Lambda's: a Writable whose client may leave (destroy) mid-way. */
function sink(outcome: Outcome, highWaterMark = 16_384, slow = false) {
  return new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      outcome.written.push(chunk.toString());
      if (slow) setTimeout(callback, 1);
      else callback();
    },
    final(callback) {
      outcome.ended = true;
      callback();
    },
    destroy(error, callback) {
      if (error) outcome.destroyedWith = error.message;
      callback(error);
    },
  });
}

async function scenario(
  connect: Connect,
  producer: (outcome: Outcome) => AsyncGenerator<string>,
  options: { leaveAfter?: number; highWaterMark?: number; slow?: boolean } = {},
): Promise<Outcome> {
  const outcome: Outcome = { written: [], ended: false, producerFinally: false, producedAfterStop: 0 };
  const out = sink(outcome, options.highWaterMark, options.slow);
  const body = Readable.from(producer(outcome));
  if (options.leaveAfter !== undefined)
    setTimeout(() => out.destroy(new Error('client disconnected')), options.leaveAfter);
  try {
    await connect(body, out);
  } catch (error) {
    outcome.rejectedWith = (error as Error).message;
    outcome.stoppedBeforeRejection = outcome.producerFinally;
  }
  await sleep(30); // cleanup that runs after the rejection (a parked producer's finally)
  return outcome;
}

const frames = (n: number) => Array.from({ length: n }, (_, i) => `data: ${i}\n\n`);

const scenarios: Record<string, [(outcome: Outcome) => AsyncGenerator<string>, Parameters<typeof scenario>[2]?]> = {
  'every frame, then the end': [
    async function* (outcome) {
      try {
        yield* frames(14);
      } finally {
        outcome.producerFinally = true;
      }
    },
  ],
  'the producer fails after two frames: the response is cut, the error reaches the handler': [
    async function* (outcome) {
      try {
        yield* frames(2);
        throw new Error('upstream cut');
      } finally {
        outcome.producerFinally = true;
      }
    },
  ],
  'the client leaves while the producer waits: it is stopped, the handler sees why': [
    async function* (outcome) {
      try {
        yield 'data: first\n\n';
        await sleep(50);
        outcome.producedAfterStop++;
        yield 'data: late\n\n';
        outcome.producedAfterStop++;
      } finally {
        outcome.producerFinally = true;
      }
    },
    { leaveAfter: 10 },
  ],
  'a slow client: backpressure, and nothing lost or reordered': [
    async function* (outcome) {
      try {
        yield* frames(200);
      } finally {
        outcome.producerFinally = true;
      }
    },
    { highWaterMark: 16, slow: true },
  ],
  'an empty body': [
    async function* (outcome) {
      outcome.producerFinally = true;
      yield* [];
    },
  ],
};

test.each(Object.keys(scenarios))('%s: as pipeline does it', async (name) => {
  const [producer, options] = scenarios[name]!;
  const expected = await scenario((body, out) => pipeline(body, out), producer, options);
  const actual = await scenario(pump, producer, options);
  expect(actual).toEqual(expected);
});

test('a response stream already gone: the body is destroyed and the handler sees a premature close', async () => {
  const outcome: Outcome = { written: [], ended: false, producerFinally: false, producedAfterStop: 0 };
  const out = sink(outcome);
  out.destroy();
  const body = Readable.from(['data: x\n\n']);
  await expect(pump(body, out)).rejects.toThrow('Premature close');
  expect(body.destroyed).toBe(true);
  expect(outcome.written).toEqual([]);
});
