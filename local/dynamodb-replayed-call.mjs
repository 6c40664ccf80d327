// A DynamoDB call handed from one layer of the embedded DynamoDB to the next, its body already
// read. Each layer (tenant access, throughput, streams, transactions, the latency log) wraps the
// request handler of the one behind it, and the one behind reads the call as the HTTP request
// it was: `data` and `end` events, headers, method, URL. So a layer that reads the body hands on
// a stream of it again (`replay`).
//
// The replayed call also carries the bytes, and their parse when the layer made one, so a layer
// behind reads them with `readCall` instead of listening to the stream and parsing the same JSON
// again: under the pinned benchmark every call was read and parsed three times (throughput,
// transactions, dynalite) and replayed twice. dynalite itself still reads the stream.

import { Readable } from 'node:stream';

/** What a replayed call carries: its bytes, and the JSON value they parse to (when parsed). */
const CARRIED = Symbol('embedded DynamoDB call body');

/**
 * The call again, its body (a Buffer or a string) already read, for the layer behind. `json`,
 * when given, must be what the body parses to; layers never change a parsed body, they replay
 * another body instead.
 */
export function replay(req, body, { headers = req.headers, json } = {}) {
  const raw = typeof body === 'string' ? Buffer.from(body) : body;
  // A stream of the one chunk, ended: cheaper than Readable.from, whose iterator takes ticks.
  const stream = new Readable({ read() {} });
  if (raw.length > 0) stream.push(raw);
  stream.push(null);
  return Object.assign(stream, { headers, method: req.method, url: req.url, [CARRIED]: { raw, json } });
}

/**
 * The call's body and the JSON value it parses to (undefined when malformed): those a layer in
 * front carried, else read from the request (rejects if the request fails).
 */
export function readCall(req) {
  const carried = req[CARRIED];
  if (carried) {
    if (carried.json === undefined) carried.json = parseJson(carried.raw.toString('utf8'));
    return Promise.resolve(carried);
  }
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      resolve({ raw, json: parseJson(raw.toString('utf8')) });
    });
    req.on('error', reject);
  });
}

/** The JSON value of a text; undefined when it is malformed. */
function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
