import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One item a DynamoDB call wrote or read, as the wire request named it. */
export interface ItemTouch {
  readonly operation: string;
  /** `write` for PutItem, UpdateItem and DeleteItem (applied or refused by their condition). */
  readonly kind: 'write' | 'read';
  readonly pk: string;
  readonly sk: string;
}

type Key = Record<string, { S?: string }>;

interface WireRequest {
  Key?: Key;
  Item?: Key;
  RequestItems?: Record<string, { Keys?: Key[] }>;
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

/**
 * A proxy in front of the embedded DynamoDB that reports every item each call touches, so a
 * test can count writes and reads per partition key the way DynamoDB meters them: a
 * conditional write whose condition fails still costs a write, and a BatchGetItem reads each
 * of its keys.
 */
export class DynamoDbCallCounter {
  private constructor(
    private readonly server: Server,
    private readonly upstream: string,
    private readonly onTouch: (touch: ItemTouch) => void,
  ) {}

  static async start(upstream: string, onTouch: (touch: ItemTouch) => void): Promise<DynamoDbCallCounter> {
    const server = createServer();
    const counter = new DynamoDbCallCounter(server, upstream, onTouch);
    server.on('request', (req, res) => void counter.handle(req, res));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return counter;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const operation = String(req.headers['x-amz-target'] ?? '')
      .split('.')
      .pop()!;
    this.report(operation, JSON.parse(body.toString('utf8') || '{}') as WireRequest);
    const target = new URL(this.upstream);
    const forwarded = request(
      { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.socket?.destroy());
    forwarded.end(body);
  }

  private report(operation: string, wire: WireRequest): void {
    const touch = (kind: ItemTouch['kind'], key: Key | undefined) => {
      if (key) this.onTouch({ operation, kind, pk: key['pk']?.S ?? '', sk: key['sk']?.S ?? '' });
    };
    if (WRITES.has(operation)) touch('write', wire.Key ?? wire.Item);
    else if (operation === 'GetItem') touch('read', wire.Key);
    else if (operation === 'BatchGetItem') {
      for (const { Keys = [] } of Object.values(wire.RequestItems ?? {})) for (const key of Keys) touch('read', key);
    }
  }
}
