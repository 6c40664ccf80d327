import { createConfig, lintFromString } from '@redocly/openapi-core';
import { routes } from '../../../lib/routes.js';
import { installLambdaStreamingGlobals } from '../../../local/lambda-streaming.js';
import { loadRouteHandler } from '../../../local/handler-modules.js';
import {
  buildOpenApiDocument,
  documentServedAt,
  INTERFACE_VERSION,
  openApiPath,
} from '../../../lambdas/openapi/document.js';
import { toJsonSchema2020 } from '../../../lambdas/openapi/json-schema-2020.js';
import { chatCompletionsBodyValidator } from '../../../lambdas/arena/chat-completions-body.js';
import { routeDocs } from '../../../lambdas/openapi/route-docs.js';
import { documentSchemas } from '../../support/openapi-schemas.js';

type Operation = Record<string, any>;

const document = buildOpenApiDocument();
const paths = document['paths'] as Record<string, Record<string, Operation>>;
const operationOf = (id: string): Operation => {
  const route = routes.find((candidate) => candidate.id === id)!;
  return paths[openApiPath(route.path)]![route.method.toLowerCase()]!;
};

/**
 * Redocly CLI's `recommended` rules, as `redocly lint` runs them, every finding counted, warnings
 * included. Rules turned off here, and why:
 * - info-license: the repository declares no license yet; the document will name it when it does.
 */
const LINT_RULES = { 'info-license': 'off' } as const;

/**
 * Findings that are wrong for this document, each at one place only. The chat request requires
 * `json_schema` in the `then` of an if/then whose enclosing schema defines that property; valid
 * JSON Schema, but the rule only looks inside the `then`. Its two forms exclude each other by
 * `message` (required in one, `false` in the other), but the oneOf rule reads exclusion only
 * from `required` and `additionalProperties`, not from a property schema of `false`.
 */
const CHAT_BODY = '#/components/requestBodies/ChatCompletionRequest/content/application~1json/schema';
const FALSE_POSITIVES = [
  `no-required-schema-properties-undefined ${CHAT_BODY}/oneOf/0/properties/response_format/then/required/0`,
  `no-illogical-composition-keywords ${CHAT_BODY}/oneOf`,
];

async function lintProblems(candidate: object): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'], rules: LINT_RULES });
  const problems = await lintFromString({ source: JSON.stringify(candidate), absoluteRef: 'openapi.json', config });
  return problems
    .map(
      (problem) => `${problem.severity} ${problem.ruleId} ${problem.location.map((where) => where.pointer).join(' ')}`,
    )
    .filter((line) => !FALSE_POSITIVES.some((known) => line.endsWith(` ${known}`)));
}

describe('the OpenAPI document', () => {
  test('is OpenAPI 3.1 of interface version 2.1.0', () => {
    expect(document['openapi']).toBe('3.1.0');
    expect((document['info'] as { version: string }).version).toBe('2.1.0');
    expect(INTERFACE_VERSION).toBe('2.1.0');
  });

  test("passes Redocly's recommended rules with no problem, warnings included, as built and as served", async () => {
    expect(await lintProblems(document)).toEqual([]);
    expect(
      await lintProblems(documentServedAt(document, 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod')),
    ).toEqual([]);
  }, 60_000);

  test('served, its one server is where it was served from; without a usable host it stays relative', () => {
    const served = documentServedAt(document, 'http://127.0.0.1:8787');
    expect(served['servers']).toEqual([{ url: 'http://127.0.0.1:8787', description: expect.any(String) }]);
    expect(served['paths']).toBe(document['paths']);
    expect(documentServedAt(document, '')['servers']).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  test('the lint validates structure: a broken document is reported', async () => {
    const broken = structuredClone(document) as Record<string, any>;
    delete broken['info'].version;
    broken['paths']['/api/v1/models'].get.responses = 'none';
    const problems = await lintProblems(broken);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error struct #\/info/),
        expect.stringMatching(/^error struct #\/paths\/~1api~1v1~1models\/get\/responses/),
      ]),
    );
  }, 60_000);

  test('every named schema and request body schema is valid JSON Schema 2020-12', () => {
    expect(documentSchemas(document).metaSchemaProblems()).toEqual({});
  });
});

describe('the document and the manifest', () => {
  test('every manifest route has docs (a missing entry is named here)', () => {
    const undocumented = routes.filter((route) => !routeDocs[route.id]).map((route) => route.id);
    expect({ undocumented }).toEqual({ undocumented: [] });
  });

  test('every documented route is in the manifest', () => {
    const unknown = Object.keys(routeDocs).filter((id) => !routes.some((route) => route.id === id));
    expect({ unknown }).toEqual({ unknown: [] });
  });

  test('the document holds exactly the manifest’s operations', () => {
    const documented = Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, operation]) => `${method.toUpperCase()} ${path} ${operation['operationId']}`,
      ),
    );
    expect(documented.sort()).toEqual(
      routes.map((route) => `${route.method} ${openApiPath(route.path)} ${route.id}`).sort(),
    );
  });

  test('a greedy path parameter is an ordinary one in the document, whose paths hold no `+`', () => {
    expect(Object.keys(paths).filter((path) => path.includes('+'))).toEqual([]);
    expect(paths['/api/v1/models/{id}']!['get']!['parameters']).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
    ]);
  });

  test('402 BUDGET_EXCEEDED, with Retry-After, exactly on the routes that reserve against budgets', () => {
    for (const route of routes) {
      const responses = operationOf(route.id)['responses'] as Record<string, { description: string; headers: object }>;
      const reserves = route.grants.includes('budgets:reserve');
      expect([route.id, '402' in responses]).toEqual([route.id, reserves]);
      if (reserves) {
        expect(responses['402']!.description).toContain('`BUDGET_EXCEEDED`');
        expect(Object.keys(responses['402']!.headers)).toContain('Retry-After');
      }
    }
    expect(operationOf('chat-completions')['responses']).toHaveProperty('402');
  });

  test('security follows the manifest’s auth schemes; unauthenticated routes say so', () => {
    expect(operationOf('health')['security']).toEqual([]);
    expect(operationOf('openapi-get')['security']).toEqual([]);
    expect(operationOf('models-list')['security']).toEqual([{ secretKey: [] }, { secretKeyHeader: [] }]);
    expect(operationOf('battle')['security']).toEqual([
      { secretKey: [] },
      { secretKeyHeader: [] },
      { publishableKey: [] },
    ]);
    expect(operationOf('usage-get')['security']).toEqual([{ secretKey: [] }, { secretKeyHeader: [] }, { session: [] }]);
    expect(operationOf('admin-usage-get')['security']).toEqual([{ adminToken: [] }]);
  });

  test('rate-limited routes document the rate headers, others do not', () => {
    for (const route of routes) {
      const responses = operationOf(route.id)['responses'] as Record<string, { headers: Record<string, unknown> }>;
      const success = Object.entries(responses).find(([status]) => status.startsWith('2'))![1];
      expect([route.id, 'X-RateLimit-Remaining' in success.headers]).toEqual([route.id, route.rateLimited]);
      expect([route.id, Object.keys(responses['429']!.headers)]).toEqual([
        route.id,
        expect.arrayContaining(['Retry-After', ...(route.rateLimited ? ['X-RateLimit-Reset'] : [])]),
      ]);
    }
  });

  test('errors are in the route’s error style, with meta where the manifest says every answer has it', () => {
    for (const route of routes) {
      const responses = operationOf(route.id)['responses'] as Record<string, Operation>;
      const style = { $ref: `#/components/schemas/${route.errorStyle === 'openai' ? 'OpenAIError' : 'EnvelopeError'}` };
      const expected = route.envelopeMeta ? { allOf: [style, { $ref: '#/components/schemas/WithMeta' }] } : style;
      for (const [status, response] of Object.entries(responses).filter(([status]) => /^([45]|default)/.test(status)))
        expect([route.id, status, response['content']['application/json'].schema]).toEqual([
          route.id,
          status,
          expected,
        ]);
    }
  });

  test('every status of the domain tables a route raises is documented, naming the code or in the route’s words', () => {
    for (const route of routes) {
      const doc = routeDocs[route.id]!;
      const responses = operationOf(route.id)['responses'] as Record<string, { description: string }>;
      for (const { status, code } of (doc.raises ?? []).flatMap((table) => Object.values(table))) {
        const description = responses[status]?.description;
        const says = description?.includes(`\`${code}\``) || (description && doc.errors?.[status] === description);
        expect([route.id, status, code, Boolean(says)]).toEqual([route.id, status, code, true]);
      }
    }
    // The statuses client code reads that once went undocumented.
    expect(Object.keys(operationOf('themes-get')['responses'])).toContain('404');
    expect(Object.keys(operationOf('auth-login')['responses'])).toEqual(expect.arrayContaining(['400', '401', '429']));
    expect(operationOf('chat-completions')['responses']['400'].description).toMatch(/CONTENT_BLOCKED/);
    // A chat failure after the first byte ends a stream answered 200: never a status of its own.
    expect(Object.keys(operationOf('chat-completions')['responses'])).not.toContain('502');
  });

  test('every operation documents a default answer for the failures any route may have (500, a busy store)', () => {
    for (const route of routes)
      expect([route.id, operationOf(route.id)['responses']['default']?.description]).toEqual([
        route.id,
        expect.stringMatching(/INTERNAL_ERROR.*SERVICE_UNAVAILABLE/),
      ]);
  });

  test('request bodies are components.requestBodies, where a property with a default is optional to generators', () => {
    const components = document['components'] as Record<string, Record<string, any>>;
    const video = components['requestBodies']!['VideoRequest'].content['application/json'].schema;
    expect(video.required).toEqual(['prompt']);
    expect(video.properties.model.default).toBeDefined();
    const requestNames = Object.values(routeDocs).flatMap((doc) => (doc.request ? [doc.request.name] : []));
    expect(Object.keys(components['requestBodies']!).sort()).toEqual([...new Set(requestNames)].sort());
    for (const name of requestNames) expect([name, name in components['schemas']!]).toEqual([name, false]);
  });

  test('the JSON answers of meta routes carry meta; the others do not', () => {
    for (const route of routes) {
      const json = operationOf(route.id)['responses'][routeDocs[route.id]!.success.status].content?.[
        'application/json'
      ];
      if (!json) continue;
      expect([route.id, JSON.stringify(json.schema).includes('WithMeta')]).toEqual([route.id, !!route.envelopeMeta]);
    }
  });

  test('the deprecated route says so on every answer, errors included; no other route does', () => {
    for (const route of routes) {
      const responses = operationOf(route.id)['responses'] as Record<string, { headers: Record<string, unknown> }>;
      for (const [status, response] of Object.entries(responses))
        expect([route.id, status, 'Deprecation' in response.headers, 'Link' in response.headers]).toEqual([
          route.id,
          status,
          route.id === 'chat-legacy',
          route.id === 'chat-legacy',
        ]);
    }
    expect(operationOf('chat-legacy')['deprecated']).toBe(true);
  });

  test('a route with a limit of its own documents it on its 429', () => {
    const limited = operationOf('fashion-status')['responses']['429'].description;
    expect(limited).toMatch(/40 requests per 10 s per key/);
  });

  test('streaming routes document their events as components with text/event-stream', () => {
    const schemas = (document['components'] as { schemas: Record<string, any> }).schemas;
    expect(operationOf('fight')['responses']['200'].content['text/event-stream'].schema).toEqual({
      $ref: '#/components/schemas/ArenaEvent',
    });
    expect(operationOf('chat-completions')['responses']['200'].content['text/event-stream'].schema).toEqual({
      $ref: '#/components/schemas/ChatCompletionChunk',
    });
    // The chat answer's media types are one union to generated clients: no error shape among them.
    const chatAnswers = operationOf('chat-completions')['responses']['200'].content;
    expect(JSON.stringify(chatAnswers)).not.toContain('OpenAIError');
    expect(Object.keys(schemas['ArenaEvent'].discriminator.mapping).sort()).toEqual(
      [
        'agent_complete',
        'agent_delta',
        'agent_start',
        'error',
        'leaderboard_update',
        'round_complete',
        'round_start',
        'search_complete',
        'search_content',
        'search_start',
        'session_complete',
        'session_start',
        'vote_update',
        'voting_complete',
        'voting_start',
      ].sort(),
    );
  });
});

describe('documented query parameters are the ones the handlers take (any other is refused)', () => {
  beforeAll(() => installLambdaStreamingGlobals());

  test.each(routes.map((route) => [route.id, route] as const))('%s', async (id, route) => {
    const { handler } = (await loadRouteHandler(route)) as { handler: { queryParameters: readonly string[] } };
    const documented = (operationOf(id)['parameters'] ?? []) as { in: string; name: string }[];
    expect(documented.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name)).toEqual(
      handler.queryParameters,
    );
  });
});

describe('documented request schemas are the ones the handlers validate with', () => {
  beforeAll(() => installLambdaStreamingGlobals());

  test.each(routes.map((route) => [route.id, route] as const))('%s', async (id, route) => {
    const { handler } = (await loadRouteHandler(route)) as { handler: { bodySchema?: Record<string, unknown> } };
    const documented = routeDocs[id]?.request;
    expect(documented?.schema).toBe(handler.bodySchema);
    if (!documented) return;
    const bodies = (document['components'] as { requestBodies: Record<string, Operation> }).requestBodies;
    expect(bodies[documented.name]!.content['application/json'].schema).toEqual(toJsonSchema2020(handler.bodySchema!));
    expect(operationOf(id)['requestBody']).toEqual({ $ref: `#/components/requestBodies/${documented.name}` });
  });

  test('the chat body is documented as two forms, told apart exactly as the handler tells them apart', () => {
    const pointer = '#/components/requestBodies/ChatCompletionRequest/content/application~1json/schema';
    const schemas = documentSchemas(document);
    const bodies = [
      { model: 'gpt', messages: [{ role: 'user', content: 'x' }] },
      { model: 'gpt', message: 'x' },
      { model: 'gpt', message: 'x', messages: [{ role: 'user', content: 'earlier' }] },
      { model: 'gpt', message: 'x', mode: 'battle' },
      { model: 'gpt', messages: [{ role: 'user', content: 'x' }], message: 42 },
      { model: 'gpt' },
      { message: 'x' },
    ];
    const verdicts = bodies.map((body) => [
      schemas.mismatches(pointer, structuredClone(body)).length === 0,
      chatCompletionsBodyValidator(structuredClone(body)),
    ]);
    expect(verdicts).toEqual([
      [true, true],
      [true, true],
      [true, true],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
    ]);
  });

  test('a body is required where its schema requires a field, in each of its forms', () => {
    const bodies = (document['components'] as { requestBodies: Record<string, Operation> }).requestBodies;
    expect(bodies['ChatCompletionRequest']!.required).toBe(true);
    expect(bodies['CreateKeyRequest']?.required ?? false).toBe(false);
  });
});
