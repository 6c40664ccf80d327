import {
  checkChatImageHosts,
  checkChatRequest,
  MAX_IMAGE_PARTS,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
} from '../../../lambdas/chat/chat-request-checks.js';
import type { GatewayChatRequest } from '../../../lambdas/chat/chat-request.js';
import { ChatError } from '../../../lambdas/chat/chat-errors.js';
import type { ContentPart } from '../../../lambdas/providers/chat-types.js';
import { MAX_LOOKED_UP_HOSTS, type HostLookup } from '../../../lambdas/schema/public-url.js';

const request = (extra: Partial<GatewayChatRequest>): GatewayChatRequest => ({
  model: 'gpt',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});
const tool = (name: string, parameters?: Record<string, unknown>) => ({
  type: 'function' as const,
  function: { name, ...(parameters ? { parameters } : {}) },
});
/** A schema whose JSON nests exactly `depth` levels. */
function schemaOfDepth(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 1; level < depth; level++) schema = { not: schema };
  return schema;
}

function rejection(body: GatewayChatRequest): ChatError {
  try {
    checkChatRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(ChatError);
    return error as ChatError;
  }
  throw new Error('expected a 400');
}

test(`schemas may nest ${MAX_SCHEMA_DEPTH} levels, in tools and in response_format`, () => {
  expect(() => checkChatRequest(request({ tools: [tool('f', schemaOfDepth(MAX_SCHEMA_DEPTH))] }))).not.toThrow();
  const deepTool = rejection(request({ tools: [tool('f'), tool('g', schemaOfDepth(MAX_SCHEMA_DEPTH + 1))] }));
  expect(deepTool.field).toBe('tools[1].function.parameters');
  expect(deepTool.message).toBe(
    `tools[1].function.parameters: nests too deep; a schema may nest at most ${MAX_SCHEMA_DEPTH} levels`,
  );
  const format = { type: 'json_schema' as const, json_schema: { name: 's', schema: schemaOfDepth(100) } };
  expect(rejection(request({ response_format: format })).field).toBe('response_format.json_schema.schema');
});

test(`schemas may hold ${MAX_SCHEMA_NODES} values`, () => {
  const properties = Object.fromEntries(Array.from({ length: MAX_SCHEMA_NODES }, (_, i) => [`p${i}`, {}]));
  const error = rejection(request({ tools: [tool('f', { type: 'object', properties })] }));
  expect(error.message).toBe(
    `tools[0].function.parameters: is too large; a schema may hold at most ${MAX_SCHEMA_NODES} JSON values`,
  );
});

test('tool_choice must name a function in tools', () => {
  const tools = [tool('get_weather')];
  const named = (name: string) => ({ type: 'function' as const, function: { name } });
  expect(() => checkChatRequest(request({ tools, tool_choice: named('get_weather') }))).not.toThrow();
  expect(() => checkChatRequest(request({ tool_choice: 'auto' }))).not.toThrow();
  expect(() => checkChatRequest(request({ tool_choice: 'none' }))).not.toThrow();
  const missing = rejection(request({ tools, tool_choice: named('get_time') }));
  expect(missing.field).toBe('tool_choice.function.name');
  expect(rejection(request({ tool_choice: named('get_time') })).field).toBe('tool_choice.function.name');
  expect(rejection(request({ tool_choice: 'required' })).field).toBe('tool_choice');
});

describe('image parts: a data: URI, or a URL the caller-URL policy accepts', () => {
  const image = (url: string): ContentPart => ({ type: 'image_url', image_url: { url } });
  const withImages = (...urls: string[]) =>
    request({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'What is this?' }, ...urls.map(image)] },
      ],
    });

  test.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://127.0.0.1:8000/',
    'https://localhost./a.png',
    'https://[::127.0.0.1]/a.png',
    'https://[64:ff9b::a9fe:a9fe]/a.png',
    'https://[2002:7f00:1::]/a.png',
    'https://127.0.0.1.nip.io/a.png',
    'http://2130706433/a.png',
    'https://10.1.2.3/a.png',
    'https://db.internal/a.png',
    'ftp://example.com/a.png',
    'gs://bucket/a.png',
    'https://user:pw@example.com/a.png',
    'not a url',
  ])('%s is a 400 naming the part', (url) => {
    const error = rejection(withImages('https://example.com/ok.png', url));
    expect(error.kind).toBe('invalid_request');
    expect(error.field).toBe('messages[1].content[2].image_url.url');
    expect(error.message).toMatch(/^messages\[1\]\.content\[2\]\.image_url\.url: must be a public http\(s\) URL/);
  });

  test('public http(s) URLs and data: URIs of any media type pass, as before', () => {
    expect(() =>
      checkChatRequest(
        withImages(
          'https://example.com/a.png',
          'http://example.com/a.png',
          'https://93.184.216.34/x',
          'https://[2606:2800:220:1::]/',
          'data:image/png;base64,aGk=',
          'data:image/svg+xml,%3Csvg%2F%3E',
          `data:image/png;base64,${'A'.repeat(100_000)}`,
        ),
      ),
    ).not.toThrow();
  });

  const resolver = (table: Record<string, readonly string[]>) => {
    const asked: string[] = [];
    const lookup: HostLookup = async (name) => {
      asked.push(name);
      if (!table[name]) throw new Error(`getaddrinfo ENOTFOUND ${name}`);
      return table[name];
    };
    return { lookup, asked };
  };

  test('checkChatImageHosts refuses a part whose name resolves to a private address, naming it', async () => {
    const { lookup, asked } = resolver({ 'cdn.example.com': ['93.184.216.34'], 'evil.example.com': ['192.168.0.7'] });
    const body = withImages(
      'https://cdn.example.com/a.png',
      'data:image/png;base64,aGk=',
      'https://evil.example.com/b.png',
    );
    await expect(checkChatImageHosts(body, { lookup })).rejects.toMatchObject({
      kind: 'invalid_request',
      field: 'messages[1].content[3].image_url.url',
      message:
        'messages[1].content[3].image_url.url: must be a public http(s) URL ' +
        '(the host evil.example.com resolves to 192.168.0.7, which is a private address)',
    });
    expect(asked.sort()).toEqual(['cdn.example.com', 'evil.example.com']);
  });

  test('checkChatImageHosts runs the static checks first, and accepts names that do not resolve', async () => {
    const { lookup, asked } = resolver({});
    await expect(checkChatImageHosts(withImages('https://[::1]/a.png'), { lookup })).rejects.toMatchObject({
      field: 'messages[1].content[1].image_url.url',
    });
    await expect(
      checkChatImageHosts(withImages('https://nowhere.example.com/a.png'), { lookup }),
    ).resolves.toBeUndefined();
    await expect(checkChatImageHosts(request({}), { lookup })).resolves.toBeUndefined();
    expect(asked).toEqual(['nowhere.example.com']);
  });

  test(`more than ${MAX_LOOKED_UP_HOSTS} distinct image hosts in one request are a 400 naming messages`, async () => {
    const { lookup, asked } = resolver({});
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://h${i}.example.com/a.png`);
    await expect(checkChatImageHosts(withImages(...urls(MAX_LOOKED_UP_HOSTS)), { lookup })).resolves.toBeUndefined();
    asked.length = 0;
    await expect(checkChatImageHosts(withImages(...urls(MAX_LOOKED_UP_HOSTS + 1)), { lookup })).rejects.toMatchObject({
      field: 'messages',
    });
    expect(asked).toHaveLength(0);
  });
});

test(`at most ${MAX_IMAGE_PARTS} image parts in one request, data: URIs included`, () => {
  const image = (i: number): ContentPart =>
    i % 2 === 0
      ? { type: 'image_url', image_url: { url: `https://img${i}.example.com/a.png` } }
      : { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };
  const withImages = (count: number) =>
    request({
      messages: [
        { role: 'user', content: Array.from({ length: count / 2 }, (_, i) => image(i)) },
        { role: 'user', content: Array.from({ length: count / 2 }, (_, i) => image(i + 1)) },
      ],
    });
  expect(() => checkChatRequest(withImages(MAX_IMAGE_PARTS))).not.toThrow();
  const refused = rejection(withImages(MAX_IMAGE_PARTS + 2));
  expect(refused.field).toBe('messages');
  expect(refused.message).toMatch(`at most ${MAX_IMAGE_PARTS} image parts`);
});
