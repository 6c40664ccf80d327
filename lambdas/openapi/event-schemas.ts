import type { JsonSchema } from './json-schema-2020.js';
import { integer, record, ref, text } from './schema-ref.js';

/**
 * The server-sent events (docs/interface.md §6): one schema per event of a battle or fight session
 * (lambdas/arena/arena-events.ts; docs/interface.md §6.1 plus `agent_delta` and the fields the gateway adds),
 * the union a stream carries; the chat completion stream's events (docs/interface.md §6.2) are the
 * ChatCompletionChunk resource.
 */

export const ARENA_STREAM_FRAMING = [
  'A `text/event-stream`: each event is an `id:` line (1, 2, 3… within the session) and one `data:` line',
  'holding one JSON ArenaEvent, then a blank line; a `: keep-alive` comment follows 15 s without an event.',
  'The stream ends after `session_complete`.',
].join(' ');

/**
 * The error event that may end a chat stream is named in words, not in the event schema: the 200's
 * media types are one union to client generators (openapi-fetch types a JSON answer as any of
 * them), and an error there would read as a successful answer.
 */
export const CHAT_STREAM_FRAMING = [
  'A `text/event-stream`: each event is one `data:` line holding a JSON ChatCompletionChunk, then a',
  'blank line; the stream ends with `data: [DONE]`. A failure after the first chunk ends it with one',
  'event holding an OpenAIError (`{"error": {...}}`) instead.',
].join(' ');

export const RESPONSES_STREAM_FRAMING = [
  'A `text/event-stream`: each event is an `event:` line naming its type and one `data:` line holding the',
  'JSON ResponseEvent, then a blank line; the stream ends after `response.completed`, `response.incomplete` or',
  '`response.failed` (no `[DONE]`).',
].join(' ');

export const FASHION_STREAM_FRAMING = [
  'A `text/event-stream`: each event is an `event: fashion` line and one `data:` line holding one JSON',
  'FashionEvent, then a blank line; the stream ends with `event: fashion` and `data: [DONE]`, after at most',
  'two minutes (a final `still_running` event then names the status URL to poll).',
].join(' ');

const roundAgent = { round: integer('From 1'), agent: text('The agent id: a family alias, or `<alias>-<n>`') };
const timestamp = integer('Unix seconds');
const leaderboardRow = record({ agent: text(), score: { type: 'number' }, rank: integer() });

/** Each event's own fields; `type` is added from the key. */
const ARENA_EVENT_FIELDS: Readonly<Record<string, { schema: JsonSchema; description: string }>> = {
  session_start: {
    description: 'The session begins; echoes the chosen style (fight only).',
    schema: {
      type: 'object',
      required: ['sessionId', 'mode', 'agents', 'rounds'],
      properties: {
        sessionId: text('Also the X-Session-ID header'),
        mode: { enum: ['battle', 'fight'] },
        fightStyle: { enum: ['brawl', 'blitz'] },
        agents: { type: 'array', items: text() },
        rounds: integer(),
      },
    },
  },
  round_start: { description: 'A new round.', schema: record({ round: integer(), totalRounds: integer() }) },
  agent_start: { description: 'An agent is about to answer.', schema: record({ ...roundAgent, model: text() }) },
  agent_delta: {
    description: 'A piece of an answer, as it is written.',
    schema: record({ ...roundAgent, delta: text() }),
  },
  agent_complete: {
    description: 'An answer is ready; `citations` when the agent searched the web.',
    schema: {
      type: 'object',
      required: ['round', 'agent', 'model', 'message'],
      properties: {
        ...roundAgent,
        model: text('The concrete model that answered'),
        message: text(),
        citations: { type: 'array', items: ref('Citation') },
      },
    },
  },
  search_start: {
    description: 'An agent searches the web.',
    schema: record({ ...roundAgent, query: text(), timestamp }),
  },
  search_content: {
    description: 'One search result, as text.',
    schema: record({ ...roundAgent, delta: text(), timestamp }),
  },
  search_complete: {
    description: 'The search results an agent reads.',
    schema: record({ ...roundAgent, citations: { type: 'array', items: ref('Citation') }, timestamp }),
  },
  voting_start: { description: 'Voting begins (fight).', schema: record({ round: integer() }) },
  vote_update: {
    description: 'One vote; `votedFor: null` is an abstention, `reason` says why.',
    schema: {
      type: 'object',
      required: ['round', 'voter', 'votedFor'],
      properties: { round: integer(), voter: text(), votedFor: { type: ['string', 'null'] }, reason: text() },
    },
  },
  voting_complete: {
    description: 'The round’s votes, tallied.',
    schema: record({
      round: integer(),
      results: { type: 'array', items: record({ agent: text(), votes: integer() }) },
    }),
  },
  leaderboard_update: {
    description: 'Cumulative scores.',
    schema: record({ round: integer(), leaderboard: { type: 'array', items: leaderboardRow } }),
  },
  round_complete: {
    description: 'A round ended; `reason: too_few_answers` when it had no vote.',
    schema: {
      type: 'object',
      required: ['round', 'winner'],
      properties: { round: integer(), winner: { type: ['string', 'null'] }, reason: { const: 'too_few_answers' } },
    },
  },
  session_complete: {
    description: 'The final result (a battle ends with `winner: null`).',
    schema: record({
      winner: { type: ['string', 'null'] },
      finalLeaderboard: { type: 'array', items: leaderboardRow },
    }),
  },
  error: {
    description: 'A failure; with `agent`, that agent sits the round out and the session goes on.',
    schema: {
      type: 'object',
      required: ['error', 'code'],
      properties: { error: text(), code: text('The failure class'), agent: text(), round: integer() },
    },
  },
};

const prediction = { prediction_id: text('The prediction (job) id') };

/** docs/interface.md §6.3's events, plus `still_running`, which ends a stream that ran its two minutes. */
const FASHION_EVENT_FIELDS: Readonly<Record<string, { schema: JsonSchema; description: string }>> = {
  job_submitted: {
    description: 'The prediction was accepted.',
    schema: record({ ...prediction, model_name: text() }),
  },
  status_update: {
    description: 'The prediction’s status changed.',
    schema: record({ ...prediction, status: ref('PredictionStatus') }),
  },
  completed: {
    description: 'The prediction finished with its outputs.',
    schema: record({
      ...prediction,
      status: { const: 'completed' },
      output: { type: 'array', items: text() },
      error: { type: 'null' },
    }),
  },
  failed: {
    description: 'The prediction failed (it costs no credits).',
    schema: record({ ...prediction, status: { const: 'failed' }, output: { type: 'null' }, error: ref('JobError') }),
  },
  error: {
    description: 'Watching the prediction failed unexpectedly; poll its status instead.',
    schema: record({ ...prediction, message: text() }),
  },
  still_running: {
    description: 'Two minutes passed and the prediction is still running: poll `status_url`.',
    schema: record({ ...prediction, status: ref('PredictionStatus'), message: text(), status_url: text() }),
  },
};

/** `session_start` → `ArenaSessionStartEvent`. */
const eventName = (prefix: string) => (type: string) =>
  `${prefix}${type.replace(/(^|_)([a-z])/g, (_match, _sep: string, letter: string) => letter.toUpperCase())}Event`;

function withType(type: string, { schema, description }: { schema: JsonSchema; description: string }): JsonSchema {
  const properties = schema['properties'] as Record<string, JsonSchema>;
  const required = schema['required'] as readonly string[];
  return {
    ...schema,
    description,
    required: ['type', ...required],
    properties: { type: { const: type }, ...properties },
  };
}

const eventsOf = (prefix: string, fields: Readonly<Record<string, { schema: JsonSchema; description: string }>>) =>
  Object.entries(fields).map(([type, own]) => ({ type, name: eventName(prefix)(type), schema: withType(type, own) }));

const arenaEvents = eventsOf('Arena', ARENA_EVENT_FIELDS);
const fashionEvents = eventsOf('Fashion', FASHION_EVENT_FIELDS);

/** One union with a `type` discriminator. */
const union = (description: string, events: ReturnType<typeof eventsOf>): JsonSchema => ({
  description,
  oneOf: events.map(({ name }) => ref(name)),
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries(events.map(({ type, name }) => [type, `#/components/schemas/${name}`])),
  },
});

export const EVENT_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ...Object.fromEntries(arenaEvents.map(({ name, schema }) => [name, schema])),
  ArenaEvent: union(
    `One event of a battle or fight stream (docs/interface.md §6.1). ${ARENA_STREAM_FRAMING}`,
    arenaEvents,
  ),
  ...Object.fromEntries(fashionEvents.map(({ name, schema }) => [name, schema])),
  FashionEvent: union(
    `One event of a fashion subscribe stream (docs/interface.md §6.3). ${FASHION_STREAM_FRAMING}`,
    fashionEvents,
  ),
};
