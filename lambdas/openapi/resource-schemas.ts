import { KEYED_PROVIDER_IDS } from '../catalog/model-catalog.js';
import { FASHION_MODEL_NAMES } from '../fashion/fashion-models.js';
import { VIDEO_MODEL_IDS } from '../media/video-models.js';
import { THEME_PLATFORMS } from '../themes/theme-types.js';
import { MAX_BUDGET_USD } from '../identity/key-schemas.js';
import { BUDGET_PERIODS } from '../store/budget-counters.js';
import type { JsonSchema } from './json-schema-2020.js';
import { dateTime, integer, nullableText, record, ref, text } from './schema-ref.js';

/**
 * The resources the routes answer with (docs/interface.md §2), written once, here: handlers do not
 * validate what they answer, so these are the documentation's own. Additions beyond the interface
 * (`byRoute`, `unpriced`, `units`, `maskedKey`...) are the gateway's, as README.md describes them.
 */

/** docs/interface.md §2.3: OpenAI's usage, with the parts of its counts the provider reported. */
const usage = {
  type: 'object',
  required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
  properties: {
    prompt_tokens: integer('Every input token, cached ones included'),
    completion_tokens: integer('Every output token, reasoning included'),
    total_tokens: integer(),
    prompt_tokens_details: {
      type: 'object',
      description: 'The parts of prompt_tokens',
      properties: {
        cached_tokens: integer("Read from the provider's prompt cache"),
        cache_write_tokens: integer("Written to the provider's prompt cache (the gateway's; OpenRouter's name)"),
        cache_write_1h_tokens: integer('The part of cache_write_tokens written to a 1-hour cache (Anthropic)'),
      },
    },
    completion_tokens_details: {
      type: 'object',
      description: 'The parts of completion_tokens',
      properties: { reasoning_tokens: integer('Spent reasoning (thinking)') },
    },
  },
};

const toolCall = record({
  id: text(),
  type: { const: 'function' },
  function: record({ name: text(), arguments: text('The arguments as a JSON text') }),
});

const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'error'];

const chatCompletion = {
  ...record({
    id: text(),
    object: { const: 'chat.completion' },
    created: integer('Unix seconds'),
    model: text('The concrete model that answered'),
    choices: {
      type: 'array',
      items: record({
        index: integer(),
        message: {
          type: 'object',
          required: ['role', 'content'],
          properties: {
            role: { const: 'assistant' },
            content: { type: ['string', 'null'] },
            tool_calls: { type: 'array', items: ref('ToolCall') },
            refusal: { type: ['string', 'null'] },
          },
        },
        finish_reason: { enum: FINISH_REASONS },
      }),
    },
    usage: ref('Usage'),
  }),
  description: 'docs/interface.md §2.3: the OpenAI chat completion.',
};

const chatCompletionChunk = {
  type: 'object',
  description: 'One event of a chat completion stream (docs/interface.md §6.2): the OpenAI chat.completion.chunk.',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: text(),
    object: { const: 'chat.completion.chunk' },
    created: integer('Unix seconds'),
    model: text(),
    choices: {
      type: 'array',
      items: record({
        index: integer(),
        delta: {
          type: 'object',
          properties: {
            role: { const: 'assistant' },
            content: { type: ['string', 'null'] },
            tool_calls: {
              type: 'array',
              items: {
                type: 'object',
                required: ['index'],
                properties: {
                  index: integer(),
                  id: text(),
                  type: { const: 'function' },
                  function: { type: 'object', properties: { name: text(), arguments: text() } },
                },
              },
            },
            refusal: { type: ['string', 'null'] },
          },
        },
        finish_reason: { enum: [...FINISH_REASONS, null] },
      }),
    },
    usage: {
      description: 'Present only when the request set stream_options.include_usage (null until the last chunk)',
      anyOf: [ref('Usage'), { type: 'null' }],
    },
  },
};

const outputText = record({
  type: { const: 'output_text' },
  text: text(),
  annotations: { type: 'array', items: {}, description: 'Always empty: the models cite nothing' },
  logprobs: { type: 'array', items: {}, description: 'Always empty' },
});
const responseOutputItem = {
  description: 'An output item: the assistant’s text, or a call of one of the request’s function tools.',
  oneOf: [
    record({
      type: { const: 'message' },
      id: text('`msg_…`'),
      status: { enum: ['completed', 'incomplete'] },
      role: { const: 'assistant' },
      content: {
        type: 'array',
        items: {
          oneOf: [outputText, record({ type: { const: 'refusal' }, refusal: text() })],
        },
      },
    }),
    record({
      type: { const: 'function_call' },
      id: text('`fc_…`'),
      call_id: text('Send it back with the call’s output as `function_call_output`'),
      name: text(),
      arguments: text('The arguments as a JSON text'),
      status: { enum: ['completed', 'incomplete'] },
    }),
  ],
};
const nullableNumber = { type: ['number', 'null'] };
const response = {
  ...record({
    id: text('`resp_…`: retrieve, delete or continue it (`previous_response_id`) while it is stored'),
    object: { const: 'response' },
    created_at: integer('Unix seconds'),
    completed_at: { type: ['integer', 'null'], description: 'Unix seconds' },
    status: { enum: ['in_progress', 'completed', 'incomplete', 'failed'] },
    background: { const: false },
    error: {
      description: 'Why a streamed response failed after it began',
      anyOf: [record({ code: text(), message: text() }), { type: 'null' }],
    },
    incomplete_details: {
      anyOf: [record({ reason: { enum: ['max_output_tokens', 'content_filter'] } }), { type: 'null' }],
    },
    instructions: { type: ['string', 'null'] },
    max_output_tokens: { type: ['integer', 'null'] },
    model: text('The concrete model that answered'),
    output: { type: 'array', items: ref('ResponseOutputItem') },
    parallel_tool_calls: { type: 'boolean' },
    previous_response_id: { type: ['string', 'null'] },
    reasoning: record({ effort: { type: 'null' }, summary: { type: 'null' } }),
    store: { type: 'boolean', description: 'Whether it is kept: false when asked, or when it could not be kept' },
    temperature: { type: 'number', description: 'The temperature sampled at (docs/interface.md §2.2’s default 0.7)' },
    text: record({ format: { type: 'object', additionalProperties: true } }),
    tool_choice: {},
    tools: { type: 'array', items: { type: 'object', additionalProperties: true } },
    top_p: nullableNumber,
    truncation: { enum: ['auto', 'disabled'] },
    usage: {
      anyOf: [
        record({
          input_tokens: integer(),
          input_tokens_details: record({ cached_tokens: integer() }),
          output_tokens: integer(),
          output_tokens_details: record({ reasoning_tokens: integer() }),
          total_tokens: integer(),
        }),
        { type: 'null' },
      ],
    },
    user: { type: ['string', 'null'] },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
  }),
  description: 'docs/interface.md §4.13: OpenAI’s Response object.',
};
const responseEvent = {
  type: 'object',
  description:
    'One event of a Responses stream (docs/interface.md §4.13): `response.created`, `response.in_progress`, ' +
    '`response.output_item.added`, `response.content_part.added`, `response.output_text.delta`, ' +
    '`response.output_text.done`, `response.content_part.done`, `response.function_call_arguments.delta`, ' +
    '`response.function_call_arguments.done`, `response.output_item.done`, then one of `response.completed`, ' +
    '`response.incomplete` or `response.failed`, each with the fields OpenAI gives it.',
  required: ['type', 'sequence_number'],
  properties: {
    type: text(),
    sequence_number: integer('0, 1, 2… within the stream'),
    response: ref('Response'),
  },
};

const model = record(
  {
    id: text('The family default model id'),
    object: { const: 'model' },
    created: integer('Unix seconds'),
    owned_by: text('`gateway/<provider>`'),
    _service: record({ name: text(), aliases: { type: 'array', items: text() } }),
  },
  'docs/interface.md §2.4: one model family, addressed by its id or any of its aliases.',
);

const keyBudget = record(
  {
    limitUsd: { type: 'number', exclusiveMinimum: 0, maximum: MAX_BUDGET_USD, description: 'The limit, USD' },
    period: { enum: [...BUDGET_PERIODS], description: 'A UTC calendar `day` or `month`, or `total` (no end)' },
    spentUsd: { type: 'number', description: 'Settled spend of the current period, USD' },
    reservedUsd: {
      type: 'number',
      description: 'Calls under way: reserved against the limit until their cost is settled, USD',
    },
    resetsAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When the current period ends and spend starts again from 0; null for `total`',
    },
  },
  "docs/interface.md §2.5 (an extension): a key's spending limit and its current period's use.",
);

const apiKey = {
  type: 'object',
  description: 'docs/interface.md §2.5: a service API key as listings show it, never the secret.',
  required: ['id', 'name', 'type', 'maskedKey', 'createdAt', 'enabled', 'rateLimit', 'budget'],
  properties: {
    id: text(),
    name: text(),
    type: { enum: ['secret', 'publishable'] },
    maskedKey: text('`sk_<id>_••••` (or `pk_`)'),
    createdAt: dateTime(),
    enabled: { type: 'boolean' },
    rateLimit: { ...integer('Requests per minute'), minimum: 1, maximum: 10000 },
    allowedOrigins: { type: 'array', items: text(), description: 'Publishable keys only' },
    budget: {
      description: 'The spending limit; null when the key has none',
      anyOf: [ref('KeyBudget'), { type: 'null' }],
    },
    contentLog: {
      description: 'Whether its chat requests’ prompts and answers are kept, and how long; null: never',
      anyOf: [record({ retentionDays: integer('Days kept') }), { type: 'null' }],
    },
  },
};

const issuedApiKey = {
  description: 'A new key: the listing fields, the owner, and the full key, shown this once.',
  allOf: [
    ref('ApiKey'),
    record({
      keyId: text(),
      accountId: text(),
      key: text('The full key; it cannot be read again'),
      message: text(),
    }),
  ],
};

const providerKey = record(
  {
    id: text(),
    provider: { enum: [...KEYED_PROVIDER_IDS] },
    slug: text(),
    displayName: { type: ['string', 'null'] },
    apiKey: text('Masked: `••••` and the last four characters'),
    createdAt: dateTime(),
  },
  "docs/interface.md §2.6: a caller's own provider key, as answered.",
);

const unpricedUsage = record(
  { requests: integer(), tokens: integer() },
  'Usage of models the catalog has no price for (counted at cost 0).',
);

const usageUnits = {
  type: 'object',
  description: 'Work that is not tokens, by unit (`search`, `characters`, `songs`, `seconds`, `credits`).',
  additionalProperties: { type: 'number' },
};

const usageFigures = {
  type: 'object',
  required: ['requests', 'tokens', 'cost', 'unpriced'],
  properties: {
    requests: integer(),
    tokens: integer(),
    cost: { type: 'number', description: 'Estimated USD' },
    unpriced: ref('UnpricedUsage'),
    units: ref('UsageUnits'),
  },
};

const usageRecord = {
  type: 'object',
  description:
    'docs/interface.md §2.7, plus `byRoute`, `byKey`, `unpriced` and `units` (present only where there was such ' +
    'work). `from` and `to` are the period counted: the one asked for, widened to whole UTC hours.',
  required: ['totalRequests', 'totalTokens', 'totalCost', 'from', 'to', 'byModel', 'byRoute', 'byKey', 'unpriced'],
  properties: {
    totalRequests: integer(),
    totalTokens: integer(),
    totalCost: { type: 'number', description: 'Estimated USD' },
    from: dateTime(),
    to: dateTime(),
    byModel: { type: 'object', additionalProperties: ref('UsageFigures') },
    byRoute: {
      type: 'object',
      description: 'Keyed by the route (manifest id) the usage came through',
      additionalProperties: ref('UsageFigures'),
    },
    byKey: {
      type: 'object',
      description: 'Keyed by the API key id that made the usage; `none` for usage made without a key',
      additionalProperties: ref('UsageFigures'),
    },
    unpriced: ref('UnpricedUsage'),
    units: ref('UsageUnits'),
  },
};

const citation = {
  type: 'object',
  description: 'docs/interface.md §2.9: a source an agent cites.',
  required: ['url', 'title', 'snippet'],
  properties: { url: text(), title: text(), snippet: text(), publishedDate: text(), score: { type: 'number' } },
};

const searchResult = record(
  {
    url: text(),
    title: text(),
    snippet: { ...text('At most 500 characters'), maxLength: 500 },
    score: { type: 'number', minimum: 0, maximum: 1 },
    published_date: nullableText('ISO date, when detected'),
    author: nullableText('When known'),
    favicon: nullableText('When known'),
  },
  'docs/interface.md §2.8: one search result.',
);

const searchAnswer = record({
  query: text(),
  results: { type: 'array', items: ref('SearchResult') },
  auto_prompt: nullableText("The provider's rewritten query, when it gave one"),
  cost_usd: { type: 'number' },
  request_id: text("The provider's id for the search, else the gateway's"),
});

const embeddingList = record(
  {
    object: { const: 'list' },
    data: {
      type: 'array',
      items: record({
        object: { const: 'embedding' },
        index: integer(),
        embedding: {
          description: 'JSON numbers (`float`), or the base64 of the little-endian float32 values (`base64`)',
          oneOf: [{ type: 'array', items: { type: 'number' } }, { type: 'string' }],
        },
      }),
    },
    model: text('The embedding model’s id'),
    usage: record({ prompt_tokens: integer(), total_tokens: integer() }),
  },
  'docs/interface.md §4.12: OpenAI’s embeddings answer, one embedding per input in order.',
);

const imageAnalysis = record(
  {
    description: text('What the model saw, or its answer to the prompt'),
    model: text('The concrete model that wrote it'),
    usage: ref('Usage'),
    cached: { type: 'boolean', description: 'Served from the account’s description cache (also `X-Cache: HIT`)' },
  },
  'docs/interface.md §4.11: an image analysed.',
);

const battleResponse = {
  type: 'object',
  description:
    'docs/interface.md §2.10: a battle answered as JSON (`stream: false`); `errors` lists agents that failed.',
  required: ['id', 'mode', 'responses', 'created_at'],
  properties: {
    id: text('The session id'),
    mode: { const: 'battle' },
    responses: {
      type: 'array',
      items: {
        type: 'object',
        required: ['agent', 'model', 'message'],
        properties: {
          agent: text(),
          model: text(),
          message: text(),
          citations: { type: 'array', items: ref('Citation') },
        },
      },
    },
    created_at: integer('Unix seconds'),
    errors: { type: 'array', items: record({ agent: text(), code: text(), error: text() }) },
  },
};

const SESSION_STATUS = {
  enum: ['running', 'complete', 'aborted', 'failed'],
  description: '`running` until the session ends, whichever host plays it',
};
const sessionAgent = record({ agent: text(), model: text('The model the agent plays') });
const sessionSummary = {
  type: 'object',
  description: 'One battle or fight session of the account.',
  required: ['id', 'mode', 'multiInstance', 'agents', 'rounds', 'status', 'winner', 'startedAt'],
  properties: {
    id: text('The session id (also `X-Session-ID`)'),
    mode: { enum: ['battle', 'fight'] },
    fightStyle: { enum: ['brawl', 'blitz'] },
    multiInstance: { type: 'boolean' },
    agents: { type: 'array', items: sessionAgent },
    rounds: integer('Rounds planned'),
    status: SESSION_STATUS,
    winner: nullableText('The session winner (fight), once there is one'),
    startedAt: dateTime(),
    endedAt: dateTime('Once the session is over'),
  },
};
const sessionState = {
  type: 'object',
  description:
    'A session as it stands: its plan, each played round (who answered with which model and how long, who ' +
    'failed, the votes, the result), the leaderboard and the status. Answers’ text is in its events only.',
  required: [
    'id',
    'status',
    'mode',
    'multiInstance',
    'agents',
    'plannedRounds',
    'rounds',
    'leaderboard',
    'winner',
    'startedAt',
  ],
  properties: {
    id: text(),
    status: SESSION_STATUS,
    mode: { enum: ['battle', 'fight'] },
    fightStyle: { enum: ['brawl', 'blitz'] },
    multiInstance: { type: 'boolean' },
    agents: { type: 'array', items: sessionAgent },
    plannedRounds: integer(),
    rounds: {
      type: 'array',
      items: {
        type: 'object',
        required: ['round', 'answered', 'failed', 'votes', 'winner'],
        properties: {
          round: integer(),
          answered: { type: 'array', items: record({ agent: text(), model: text(), chars: integer('Answer length') }) },
          failed: { type: 'array', items: record({ agent: text(), code: text() }) },
          results: { type: 'array', items: record({ agent: text(), votes: integer() }) },
          votes: {
            type: 'array',
            items: {
              type: 'object',
              required: ['voter', 'votedFor'],
              properties: {
                voter: text(),
                votedFor: nullableText('null: an abstention'),
                reason: text(),
              },
            },
          },
          winner: nullableText('The round winner'),
        },
      },
    },
    leaderboard: { type: 'array', items: record({ agent: text(), score: integer(), rank: integer() }) },
    winner: nullableText('The session winner (fight), once there is one'),
    startedAt: dateTime(),
    endedAt: dateTime('Once the session is over'),
    lastEventId: integer('The last event’s id, once the session is over'),
    cancelled: { type: 'boolean', description: 'Its owner asked it to stop' },
  },
};
const nullableInteger = (description: string): JsonSchema => ({ type: ['integer', 'null'], description });
/** One request of the request log (lambdas/usage/request-log.ts RequestRow). */
const requestLogRow: JsonSchema = {
  type: 'object',
  description: 'One request: its upstream attempts (retries, fallbacks) and cache hit metered together',
  required: [
    'id',
    'time',
    'route',
    'keyId',
    'model',
    'provider',
    'fallbackFrom',
    'attempts',
    'status',
    'outcome',
    'cached',
    'tokens',
    'cost',
    'priced',
    'latencyMs',
    'timeToFirstTokenMs',
    'guardrails',
  ],
  properties: {
    id: text('The request id (`X-Request-ID`)'),
    time: dateTime('When the request started'),
    route: text('The route (manifest id) it came through'),
    keyId: nullableText('The API key that made it; null for a dashboard session'),
    model: text('The model that answered, or the last one tried'),
    provider: nullableText('That model’s provider'),
    fallbackFrom: nullableText('The model first tried, when another answered'),
    attempts: integer('Upstream attempts and cache hits metered'),
    status: integer('The last attempt’s upstream status (200 for answers and cache hits; 0 when none came)'),
    outcome: text('`ok`, `cache_hit`, or the last attempt’s failure class'),
    cached: { type: 'boolean', description: 'Answered from the response cache' },
    tokens: record({ prompt: integer(), completion: integer(), total: integer() }),
    cost: { type: 'number', description: 'Estimated USD, every attempt’s' },
    priced: { type: 'boolean', description: 'False when some model has no catalog price (counted as 0)' },
    latencyMs: nullableInteger('The attempts’ upstream time, summed; null when none was timed'),
    timeToFirstTokenMs: nullableInteger('A streamed answer: until its first chunk of substance'),
    guardrails: {
      type: ['object', 'null'],
      description:
        'Each guardrail that ran and its outcome: `pass`, `redact`, `skip`, or `block` (moderation) and `fail` ' +
        '(schema validation) when it stopped the answer; null when none ran',
      additionalProperties: { enum: ['pass', 'redact', 'skip', 'block', 'fail'] },
    },
    sessionId: text('The arena session the call belongs to'),
  },
};
const requestLogPage = {
  type: 'object',
  required: ['requests'],
  properties: {
    requests: { type: 'array', items: ref('RequestLogRow') },
    nextCursor: text('Pass as `cursor` for the next page; absent when the log holds no more'),
  },
};
const sessionList = {
  type: 'object',
  required: ['sessions'],
  properties: {
    sessions: { type: 'array', items: ref('SessionSummary') },
    nextCursor: text('Pass as `cursor` for the next page; absent on the last'),
  },
};
const sessionCancel = record(
  {
    id: text(),
    cancelled: { type: 'boolean', description: 'True when the session was running and is now asked to stop' },
    status: { enum: ['cancelling', 'complete', 'aborted', 'failed'] },
  },
  'A cancellation: the session’s host stops at its next lease renewal, and the session ends `aborted`.',
);

const interval = {
  type: 'array',
  items: { type: 'number' },
  minItems: 2,
  maxItems: 2,
  description: '95% bootstrap interval',
};
const leaderboard = {
  type: 'object',
  description:
    'The account’s models rated from its fights’ votes (Bradley–Terry, 400 points per tenfold odds, the ' +
    'models’ mean at 1000), with 95% intervals from 1,000 bootstrap resamples of ballots. `computing` ' +
    '(202) until the first fit of a range is ready; `stale` while a newer one is computed.',
  required: ['status', 'from', 'to', 'styleControl'],
  properties: {
    status: { enum: ['ready', 'computing'] },
    from: text('First day, YYYY-MM-DD (UTC)'),
    to: text('Last day, YYYY-MM-DD (UTC)'),
    styleControl: { type: 'boolean' },
    stale: { type: 'boolean', description: 'A session ended since this fit; a new one is being computed' },
    computedAt: dateTime(),
    models: {
      type: 'array',
      items: record({
        model: text(),
        family: nullableText('The model’s family alias'),
        rating: { type: 'number' },
        interval,
        wins: integer('Pairwise wins: the chosen answer over each other answer on a ballot'),
        losses: integer(),
        battles: integer('Pairwise comparisons'),
      }),
    },
    baseline: { type: 'object', additionalProperties: true, description: 'What 1000 means' },
    scale: { type: 'object', additionalProperties: true },
    interval: { type: 'object', additionalProperties: true, description: 'How the intervals were made' },
    style: {
      type: ['array', 'null'],
      description: 'With style control: the length and markdown coefficients (log-odds) and their intervals',
      items: { type: 'object', additionalProperties: true },
    },
    ballots: integer(),
    comparisons: integer(),
    skipped: { type: 'object', additionalProperties: true },
    components: integer('Connected groups of models; ratings across groups are not comparable'),
    sessions: integer('Fights read'),
    truncated: { type: 'boolean', description: 'The ballot cap (100,000) left the newest fights out' },
    positionBias: {
      type: 'object',
      additionalProperties: true,
      description: 'Votes by displayed position per ballot size, with exact binomial and chi-square tests',
    },
    judgeAgreement: {
      type: 'object',
      additionalProperties: true,
      description: 'How often two judges of the same round preferred the same model of a pair',
    },
  },
};

const theme = record(
  {
    id: text('A slug'),
    name: text(),
    platform: { enum: [...THEME_PLATFORMS] },
    weight: { type: 'number' },
    content: text('Markdown wrapped in `<design-system>…</design-system>`'),
    source: record({ provider: text(), url: text(), theme_url: text() }),
  },
  'docs/interface.md §2.11: one design system.',
);

const musicResult = record(
  {
    status: { type: 'integer', description: "MiniMax's status: 1 in progress, 2 complete (a finished call answers 2)" },
    audio: text('A URL (valid 24 hours) or the audio as hex, per `output_format`'),
    duration: { type: 'number', description: 'Seconds' },
    sample_rate: { type: 'number' },
    format: text('`mp3`'),
  },
  'docs/interface.md §2.13: a generated song.',
);

const jobError = record({ name: text('A stable name to branch on'), message: text() }, 'Why a job failed.');

const videoSubmitted = record(
  {
    task_id: text('The job id to poll status with'),
    status: { const: 'submitted' },
    model: { enum: [...VIDEO_MODEL_IDS] },
  },
  'docs/interface.md §4.9: a submitted video job.',
);

const webhookReport = {
  oneOf: [
    { type: 'null' },
    record({
      status: {
        enum: ['pending', 'delivered', 'failed'],
        description: '`pending` until delivered or the retries are spent',
      },
      attempts: integer(),
      last_status: { type: ['integer', 'null'], description: "The receiver's HTTP status at the last attempt" },
    }),
  ],
  description: "How the job's webhook went (docs/interface.md §6.4); null without a `webhook_url`",
} as const;

const webhookSecret = record(
  {
    secret: text('`whsec_<base64>`: the secret deliveries are signed with'),
    previousSecret: nullableText('Within 24 hours of a rotation: the previous secret, which signs too'),
    previousExpiresAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When the previous secret stops signing',
    },
  },
  "docs/interface.md §6.4: the account's webhook signing secret.",
);

const videoJob = record(
  {
    task_id: text(),
    status: { enum: ['Queueing', 'Processing', 'Success', 'Fail'] },
    model: { enum: [...VIDEO_MODEL_IDS] },
    file_id: nullableText('On `Success`'),
    download_url: nullableText('On `Success`: a link that works for at least 10 more minutes'),
    error: { oneOf: [{ type: 'null' }, ref('JobError')], description: 'On `Fail`: why' },
    webhook: webhookReport,
  },
  'docs/interface.md §2.13: a video job.',
);

const predictionStatus = { enum: ['starting', 'in_queue', 'processing', 'completed', 'failed'] };

const fashionRun = record(
  {
    prediction_id: text('The id to poll status with'),
    status: { const: 'starting' },
    model_name: { enum: [...FASHION_MODEL_NAMES] },
    created_at: integer('Epoch milliseconds'),
  },
  'docs/interface.md §4.10: a submitted prediction.',
);

const fashionPrediction = record(
  {
    prediction_id: text(),
    status: ref('PredictionStatus'),
    model_name: { enum: [...FASHION_MODEL_NAMES] },
    created_at: integer('Epoch milliseconds'),
    output: {
      type: ['array', 'null'],
      items: text(),
      description: 'When completed: output URLs (CDN, kept 72 h) or base64 data URLs (kept 60 min)',
    },
    error: {
      oneOf: [{ type: 'null' }, ref('JobError')],
      description: 'When failed: `ImageLoadError`, `ContentModerationError`, `PoseError`, … (docs/interface.md §7)',
    },
    webhook: webhookReport,
  },
  'docs/interface.md §2.12: a fashion prediction.',
);

const responseMeta = record(
  { requestId: { type: 'string', format: 'uuid' }, timestamp: dateTime() },
  'docs/interface.md §2.14: on every fashion answer, errors included.',
);

const health = record({
  status: { enum: ['healthy', 'degraded'] },
  version: text(),
  timestamp: dateTime(),
  uptime: { type: 'number', description: 'Seconds' },
  services: {
    type: 'array',
    items: record({ name: text('A model family alias'), status: { enum: ['up', 'unconfigured'] } }),
  },
});

const account = record({
  accountId: text(),
  email: text(),
  name: text(),
  createdAt: dateTime(),
  dashboard: record({ email: text(), initialPassword: text('Shown once') }),
});

export const RESOURCE_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  Usage: usage,
  ToolCall: toolCall,
  ChatCompletion: chatCompletion,
  ChatCompletionChunk: chatCompletionChunk,
  Response: response,
  ResponseOutputItem: responseOutputItem,
  ResponseEvent: responseEvent,
  ResponseDeleted: record({ id: text(), object: { const: 'response' }, deleted: { const: true } }),
  Model: model,
  ModelList: record({ object: { const: 'list' }, data: { type: 'array', items: ref('Model') } }),
  ApiKey: apiKey,
  IssuedApiKey: issuedApiKey,
  ApiKeyList: record({ keys: { type: 'array', items: ref('ApiKey') } }),
  KeyBudget: keyBudget,
  AccountBudget: record({
    budget: {
      description: 'The account’s spending limit over all its keys and sessions; null when it has none',
      anyOf: [ref('KeyBudget'), { type: 'null' }],
    },
    webhookUrl: {
      type: ['string', 'null'],
      description:
        'Where the account’s and its keys’ budget threshold crossings are posted (`BudgetThresholdEvent`, docs/interface.md §6.4); null when none',
    },
  }),
  BudgetThresholdEvent: record(
    {
      type: { const: 'budget.threshold_crossed' },
      timestamp: { type: 'string', format: 'date-time', description: 'When the crossing was told' },
      data: {
        type: 'object',
        required: ['owner', 'accountId', 'period', 'periodStart', 'limitUsd', 'spentUsd', 'thresholdPercent'],
        properties: {
          owner: { enum: ['key', 'account'], description: 'Whose budget crossed: a key’s or the account’s' },
          keyId: { type: 'string', description: 'The key, for a key’s budget only' },
          accountId: text(),
          period: { enum: ['day', 'month', 'total'] },
          periodStart: { type: 'string', description: 'The period’s start (`2026-11-27`, `2026-11`) or `total`' },
          limitUsd: { type: 'number' },
          spentUsd: { type: 'number', description: 'The settled spend that crossed the threshold' },
          thresholdPercent: { enum: [50, 80, 100] },
        },
      },
    },
    'The body the gateway POSTs to the account’s budget `webhookUrl` when a budget’s spend crosses 50, 80 or 100% of its limit in a period (docs/interface.md §6.4), signed as Standard Webhooks says; `webhook-id` is `<budget scope>.<period start>.<threshold>`.',
  ),
  ApiKeyUpdate: {
    description: 'The key as changed: the listing fields, and the interface’s `keyId` and `updated`.',
    allOf: [ref('ApiKey'), record({ keyId: text(), updated: { const: true } })],
  },
  ProviderKey: providerKey,
  WebhookSecret: webhookSecret,
  ProviderKeyList: record({ keys: { type: 'array', items: ref('ProviderKey') } }),
  UnpricedUsage: unpricedUsage,
  UsageUnits: usageUnits,
  UsageFigures: usageFigures,
  UsageRecord: usageRecord,
  RequestLogRow: requestLogRow,
  RequestLogPage: requestLogPage,
  RequestContent: {
    type: 'object',
    required: ['requestId', 'at', 'route', 'messages', 'answer', 'truncated'],
    properties: {
      requestId: text('The request id'),
      at: dateTime('When the request started'),
      keyId: text('The key that made it'),
      route: text('The route (manifest id)'),
      messages: { type: 'array', description: 'The chat messages as they went upstream', items: {} },
      answer: { description: 'The answer’s messages, one per choice, as the caller received them' },
      truncated: { type: 'boolean', description: 'True when the oldest messages were left out to fit' },
    },
  },
  AccountUsageRecord: { allOf: [ref('UsageRecord'), record({ accountId: text() })] },
  Citation: citation,
  SearchResult: searchResult,
  SearchAnswer: searchAnswer,
  EmbeddingList: embeddingList,
  ImageAnalysis: imageAnalysis,
  BattleResponse: battleResponse,
  SessionSummary: sessionSummary,
  SessionState: sessionState,
  SessionList: sessionList,
  SessionCancel: sessionCancel,
  Leaderboard: leaderboard,
  Theme: theme,
  MusicResult: musicResult,
  JobError: jobError,
  VideoSubmitted: videoSubmitted,
  VideoJob: videoJob,
  FashionRun: fashionRun,
  FashionPrediction: fashionPrediction,
  PredictionStatus: predictionStatus,
  ResponseMeta: responseMeta,
  WithMeta: record({ meta: ref('ResponseMeta') }),
  Health: health,
  SignedIn: record({ accountId: text(), email: text(), expiresAt: dateTime('When the session ends') }),
  MfaSetup: record({
    secret: text('The authenticator secret, base32: shown to the user this once, to type into the app'),
    otpauthUri: text('The same secret as an `otpauth://totp/` URI (TOTP, SHA-1, 6 digits, 30 s), for a QR code'),
  }),
  MfaSetupBegun: record({ mfaSetup: ref('MfaSetup') }),
  MfaState: {
    type: 'object',
    required: ['enabled'],
    properties: {
      enabled: { type: 'boolean', description: 'Whether sign-in asks for the authenticator’s code' },
      setup: { ...ref('MfaSetup'), description: 'A set-up begun: confirm it with a code of this secret' },
    },
  },
  DashboardSession: record({ accountId: text(), email: text(), name: { type: ['string', 'null'] } }),
  Account: account,
  OpenApiDocument: {
    type: 'object',
    description: 'This document: OpenAPI 3.1.',
    required: ['openapi', 'info', 'paths'],
    properties: {
      openapi: text('`3.1.0`'),
      info: {
        type: 'object',
        required: ['title', 'version'],
        properties: { title: text(), version: text('The interface version') },
        additionalProperties: true,
      },
      servers: {
        type: 'array',
        items: { type: 'object', required: ['url'], properties: { url: text() }, additionalProperties: true },
      },
      paths: { type: 'object', additionalProperties: { type: 'object', additionalProperties: true } },
    },
    additionalProperties: true,
  },
};
