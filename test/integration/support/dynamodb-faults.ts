import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Fault = 'lose-answer' | 'fail';

interface Rule {
  readonly fault: Fault;
  /** A request is hit when its body contains this text (e.g. one day total's key). */
  readonly bodyContains: string;
  remaining: number;
}

/**
 * A proxy in front of the embedded DynamoDB that injects failures into matching requests:
 * `lose-answer` forwards the request (DynamoDB applies it) and then drops the connection before
 * the answer reaches the caller; `fail` answers 500 InternalServerError without forwarding.
 */
export class DynamoDbFaultProxy {
  private readonly rules: Rule[] = [];
  private constructor(
    private readonly server: Server,
    public upstream: string,
  ) {}

  static async start(upstream: string): Promise<DynamoDbFaultProxy> {
    const server = createServer();
    const proxy = new DynamoDbFaultProxy(server, upstream);
    server.on('request', (req, res) => void proxy.handle(req, res));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return proxy;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  inject(fault: Fault, bodyContains: string, times: number): void {
    this.rules.push({ fault, bodyContains, remaining: times });
  }

  /** Faults not yet used up. */
  get pending(): number {
    return this.rules.reduce((sum, rule) => sum + rule.remaining, 0);
  }

  clear(): void {
    this.rules.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const rule = this.rules.find((r) => r.remaining > 0 && body.toString('utf8').includes(r.bodyContains));
    if (rule) rule.remaining--;
    if (rule?.fault === 'fail') {
      res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'injected' }));
      return;
    }
    const answer = await this.forward(req, body).catch(() => undefined);
    if (!answer || rule?.fault === 'lose-answer') {
      res.socket?.destroy();
      return;
    }
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  }

  private forward(
    req: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
    const target = new URL(this.upstream);
    return new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: target.host };
      const upstream = request(
        { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (part: Buffer) => parts.push(part));
          answer.on('error', reject);
          answer.on('end', () =>
            resolve({
              status: answer.statusCode ?? 500,
              headers: { 'content-type': String(answer.headers['content-type'] ?? 'application/x-amz-json-1.0') },
              body: Buffer.concat(parts),
            }),
          );
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });
  }
}
