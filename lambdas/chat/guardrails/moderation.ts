import type { ModerationSettings } from '../../config/configuration.js';
import { ENV } from '../../config/environment.js';
import { ChatError } from '../chat-errors.js';

/**
 * Content moderation (the `content_moderation` guardrail) behind one interface, so the gateway
 * does not care which engine decides: local rules, Bedrock Guardrails, or a moderation API.
 */
export type ModerationSource = 'input' | 'output';

export interface ModerationResult {
  flagged: boolean;
  categories: string[];
}

export interface Moderator {
  /** `source` says whether the texts are the caller's (input) or the model's (output). */
  moderate(texts: string[], signal: AbortSignal, source?: ModerationSource): Promise<ModerationResult>;
}

export interface ModerationRule {
  category: string;
  pattern: RegExp;
}

// Words between an action and its subject that make the sentence about something else:
// "write a report on ransomware", "how to stop killing myself", "protect children from".
const STOP = String.raw`(?:about|on|regarding|against|from|of|not|never|no|without|stop|stopping|prevent|preventing|avoid|avoiding|detect|detecting|defend|report|reporting|protect|protecting|treat|treating|recogni[sz]e|spot|survive|surviving|history|awareness|counter|countering)`;
// Words after a subject that turn it defensive or harmless: "bomb shelter", "malware detection".
const HARMLESS_AFTER = String.raw`(?:shelters?|proof|squads?|threats?|disposal|detection|detectors?|sniffing|scares?|drills?|protection|prevention|awareness|defen[cs]es?|analysis|removal|scanners?|signatures?|reports?|trends?|statistics|incidents?|response|polic(?:y|ies)|training|simulations?|vaccines?|antidotes?|treatment|survivors?|victims?|hotlines?|recovery|history|insurance)`;

/**
 * An action ("make", "how to") followed, within `maxGap` words, by a dangerous subject. Both
 * are needed, so news, history, fiction titles and defensive questions do not match.
 */
function near(actions: readonly string[], subjects: readonly string[], maxGap: number): RegExp {
  return new RegExp(
    String.raw`\b(?:${actions.join('|')})(?:[\s,:]+(?!${STOP}\b)[\w'-]+){0,${maxGap}}[\s,:]+(?:${subjects.join('|')})\b(?![\s-]+${HARMLESS_AFTER}\b)`,
    'i',
  );
}

const MAKE = [
  'make',
  'making',
  'build',
  'building',
  'produce',
  'producing',
  'manufacture',
  'manufacturing',
  'create',
  'creating',
  'assemble',
  'assembling',
  'construct',
  'constructing',
  'synthesi[sz]e',
  'synthesi[sz]ing',
  'synthesis of',
  'recipe for',
  'instructions for',
];
const MINOR = String.raw`(?:a\s+|an\s+|the\s+|my\s+)?(?:child|children|kids?|minors?|underage\s+[\w-]+|preteens?|pre-teens?|toddlers?|infants?|little\s+(?:girl|boy)s?|(?:1[0-7]|[1-9])[- ]?(?:yo|year[- ]olds?))`;

/**
 * The default local rule set: explicit requests for, or instructions toward, clearly dangerous
 * content. It is deliberately conservative (low false positives on ordinary text, so it misses
 * paraphrases and obfuscation); deployments that need more plug in Bedrock or a moderation API.
 */
export const LOCAL_RULES: readonly ModerationRule[] = [
  {
    category: 'weapons_of_mass_destruction',
    pattern: near(
      [...MAKE, 'weaponi[sz]e', 'weaponi[sz]ing', 'cultivate', 'culture', 'aerosoli[sz]e', 'brew'],
      [
        'sarin',
        'soman',
        'tabun',
        'vx',
        'novichok',
        'nerve agents?',
        'mustard gas',
        'sulfur mustard',
        'ricin',
        'abrin',
        'anthrax',
        'bacillus anthracis',
        'botulinum(?: toxin)?',
        'smallpox',
        '(?:chemical|biological|nuclear|radiological) weapons?',
        'bio-?weapons?',
        'dirty bombs?',
        'weapons[- ]grade (?:uranium|plutonium)',
        '(?:nuclear|atomic) (?:bombs?|warheads?)',
      ],
      3,
    ),
  },
  {
    category: 'explosives',
    pattern: near(
      MAKE,
      [
        '(?<!(?:bath|photo|seed|stink|smoke|glitter|fizzy|flavou?r|calorie|love|truth|cherry|beauty|f)[ -])bombs?',
        'ieds?',
        'improvised explosive devices?',
        'explosive devices?',
        'tatp',
        'triacetone triperoxide',
        'acetone peroxide',
        'hmtd',
        'nitroglycerine?',
        'anfo',
        'c-?4',
        'plastic explosives?',
        'explosives',
        'detonators?',
        'blasting caps?',
        'molotov cocktails?',
        'grenades?',
      ],
      3,
    ),
  },
  {
    category: 'child_sexual_content',
    pattern: near(
      [
        'write',
        'writing',
        'generate',
        'create',
        'make',
        'produce',
        'draw',
        'describe',
        'show',
        'send',
        'find',
        'share',
        'depict',
        'role-?play',
        'imagine',
      ],
      [
        String.raw`(?:sexual|sexy|erotic|sexually explicit|nude|pornographic|lewd|nsfw)(?:\s+[\w'-]+){0,3}?\s+(?:of|with|involving|featuring|about|between)\s+${MINOR}`,
        String.raw`(?:child|kiddie|kiddy|underage|preteen|pre-teen|minor)\s*(?:porn|pornography|sex\s+(?:videos?|images?|photos?|pictures?)|nudes|erotica)`,
        String.raw`(?:nude|sexy|sexuali[sz]ed)\s+${MINOR}`,
      ],
      3,
    ),
  },
  {
    category: 'self_harm_instructions',
    pattern: near(
      [
        'how (?:to|do i|can i|should i|would i)',
        '(?:best|easiest|quickest|fastest|surest|painless|least painful|most painless) (?:ways?|methods?) (?:to|of)',
        '(?:instructions|steps|guide|tips) (?:to|for|on)',
      ],
      [
        'kill myself',
        'killing myself',
        'commit suicide',
        'committing suicide',
        'end my (?:own )?life',
        'ending my (?:own )?life',
        'take my (?:own )?life',
        'hang myself',
        'hanging myself',
        '(?:slit|cut) my wrists?',
        'overdose on',
      ],
      1,
    ),
  },
  {
    category: 'malware',
    pattern: near(
      [
        'write',
        'writing',
        'code',
        'coding',
        'create',
        'creating',
        'build',
        'building',
        'develop',
        'developing',
        'make',
        'making',
        'generate',
        'program',
      ],
      [
        'ransomware',
        'keyloggers?',
        'remote access trojans?',
        'rootkits?',
        'botnets?',
        '(?:credential|password|cookie|info)[- ]?stealers?',
        'cryptojackers?',
        'spyware',
        '(?:polymorphic |undetectable |fud )?malware',
        'self[- ](?:replicating|propagating) (?:virus|worm|malware|code)',
        '(?:computer )?(?:virus|worm)(?:es)? that (?:spreads|replicates|infects|encrypts|steals|deletes|destroys)',
        '(?:working |weaponi[sz]ed )?exploits? for cve-\\d{4}-\\d+',
      ],
      2,
    ),
  },
];

export function localModerator(rules: readonly ModerationRule[] = LOCAL_RULES): Moderator {
  return {
    async moderate(texts) {
      const categories = rules
        .filter((rule) => texts.some((text) => rule.pattern.test(text)))
        .map((rule) => rule.category);
      return { flagged: categories.length > 0, categories };
    },
  };
}

/**
 * Bedrock ApplyGuardrail, reduced to the fields used. Request: `guardrailIdentifier`,
 * `guardrailVersion` (a number or DRAFT), `source` INPUT|OUTPUT, `content: [{text: {text}}]`.
 * Response: `action` GUARDRAIL_INTERVENED or NONE, and `assessments`, one per policy kind, whose
 * items carry `action` (BLOCKED, ANONYMIZED, NONE). The types are loose on purpose, so the
 * integrator's `(input, signal) => client.send(new ApplyGuardrailCommand(input), { abortSignal: signal })`
 * fits without this module depending on the SDK.
 */
export interface ApplyGuardrailInput {
  guardrailIdentifier: string;
  guardrailVersion: string;
  source: 'INPUT' | 'OUTPUT';
  content: { text: { text: string } }[];
}

interface PolicyItem {
  action?: string;
  name?: string;
  type?: string;
}

export interface GuardrailAssessment {
  topicPolicy?: { topics?: PolicyItem[] };
  contentPolicy?: { filters?: PolicyItem[] };
  wordPolicy?: { customWords?: PolicyItem[]; managedWordLists?: PolicyItem[] };
  sensitiveInformationPolicy?: { piiEntities?: PolicyItem[]; regexes?: PolicyItem[] };
  contextualGroundingPolicy?: { filters?: PolicyItem[] };
}

export interface ApplyGuardrailOutput {
  action?: string;
  assessments?: GuardrailAssessment[];
}

export type ApplyGuardrailSend = (input: ApplyGuardrailInput, signal: AbortSignal) => Promise<ApplyGuardrailOutput>;

export interface BedrockModeratorConfig {
  guardrailId: string;
  /** Default DRAFT, Bedrock's working version. */
  guardrailVersion?: string;
  send: ApplyGuardrailSend;
}

/**
 * Flags when Bedrock intervened and blocked something; categories name what blocked (topic
 * names, content filter types, `profanity`/`custom_word`, PII types, grounding filter types).
 * An intervention that only anonymized (masked PII) does not block: the `pii` guardrail owns
 * PII. An intervention without any assessment detail blocks as `guardrail`.
 */
export function bedrockModerator(config: BedrockModeratorConfig): Moderator {
  return {
    async moderate(texts, signal, source = 'input') {
      const content = texts.filter((text) => text.trim() !== '').map((text) => ({ text: { text } }));
      if (content.length === 0) return { flagged: false, categories: [] };
      const input: ApplyGuardrailInput = {
        guardrailIdentifier: config.guardrailId,
        guardrailVersion: config.guardrailVersion ?? 'DRAFT',
        source: source === 'output' ? 'OUTPUT' : 'INPUT',
        content,
      };
      const output = await unavailableOnFailure(() => config.send(input, signal), signal);
      if (output.action !== 'GUARDRAIL_INTERVENED') return { flagged: false, categories: [] };
      const items = (output.assessments ?? []).flatMap((a) => [
        ...(a.topicPolicy?.topics ?? []).map((t) => [t, t.name] as const),
        ...(a.contentPolicy?.filters ?? []).map((f) => [f, f.type?.toLowerCase()] as const),
        ...(a.wordPolicy?.customWords ?? []).map((w) => [w, 'custom_word'] as const),
        ...(a.wordPolicy?.managedWordLists ?? []).map((w) => [w, w.type?.toLowerCase() ?? 'profanity'] as const),
        ...(a.sensitiveInformationPolicy?.piiEntities ?? []).map(
          (p) => [p, p.type && `pii:${p.type.toLowerCase()}`] as const,
        ),
        ...(a.sensitiveInformationPolicy?.regexes ?? []).map((r) => [r, r.name && `regex:${r.name}`] as const),
        ...(a.contextualGroundingPolicy?.filters ?? []).map((f) => [f, f.type?.toLowerCase()] as const),
      ]);
      if (items.length === 0) return { flagged: true, categories: ['guardrail'] };
      const categories = unique(
        items.filter(([item]) => item.action === 'BLOCKED').map(([, name]) => name ?? 'guardrail'),
      );
      return { flagged: categories.length > 0, categories };
    },
  };
}

/** The part of `fetch` used, so tests and other runtimes can inject their own. */
export type FetchLike = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;

export interface OpenAiModerationConfig {
  /** The `/moderations` endpoint, or the API base it is appended to (`https://host/v1`). */
  url: string;
  /**
   * The key, or how to read it before each call (deployed, from its Secrets Manager secret,
   * cached there): a read that fails or finds no value fails the request closed, as an
   * unreachable engine does.
   */
  apiKey: string | (() => Promise<string>);
  model?: string;
  fetch?: FetchLike;
}

/**
 * An OpenAI-compatible moderation endpoint: POST `{model?, input: string[]}` with a Bearer key;
 * the answer's `results[].flagged` and the `results[].categories` that are true decide.
 */
export function openAiModerationModerator(config: OpenAiModerationConfig): Moderator {
  const url = /\/moderations\/?$/.test(config.url) ? config.url : `${config.url.replace(/\/+$/, '')}/moderations`;
  const doFetch: FetchLike = config.fetch ?? globalThis.fetch;
  const keyOf = async (): Promise<string> => {
    const key = typeof config.apiKey === 'string' ? config.apiKey : await config.apiKey();
    if (key.trim() === '') throw new Error('the moderation API key is empty');
    return key.trim();
  };
  return {
    async moderate(texts, signal) {
      const input = texts.filter((text) => text.trim() !== '');
      if (input.length === 0) return { flagged: false, categories: [] };
      const body = await unavailableOnFailure(async () => {
        const apiKey = await keyOf();
        const response = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
          body: JSON.stringify({ ...(config.model ? { model: config.model } : {}), input }),
          signal,
        });
        if (!response.ok) throw new Error(`moderation endpoint answered ${response.status}`);
        return response.json();
      }, signal);
      const results = (body as { results?: unknown } | null)?.results;
      if (!Array.isArray(results))
        throw moderationUnavailable(new Error('moderation endpoint answered without results'));
      const flagged = results.some((r: { flagged?: unknown }) => r?.flagged === true);
      const categories = unique(
        results.flatMap((r: { categories?: Record<string, unknown> }) =>
          Object.entries(r?.categories ?? {})
            .filter(([, on]) => on === true)
            .map(([name]) => name),
        ),
      );
      return { flagged, categories: flagged && categories.length === 0 ? ['flagged'] : flagged ? categories : [] };
    },
  };
}

/** The environment moderatorFromEnv reads (the stack sets them: lib/constructs/endpoint-access.ts). */
export interface ModeratorDeps {
  /** Required for a Bedrock guardrail: the integrator owns the Bedrock client. */
  bedrockSend?: ApplyGuardrailSend;
  /** Required when the moderation API's key is in a secret: reads a secret's value (cached by the integrator). */
  readSecret?: (secretId: string) => Promise<string>;
  fetch?: FetchLike;
}

/**
 * The engine the configuration names (lambdas/config/configuration.ts `moderation`, which
 * refuses a half configuration rather than moderating with something weaker): a Bedrock
 * guardrail, the moderation API with its key or the secret holding it, or the local rules.
 */
export function moderatorFor(settings: ModerationSettings, deps: ModeratorDeps = {}): Moderator {
  switch (settings.engine) {
    case 'bedrock':
      if (!deps.bedrockSend)
        throw new Error(`${ENV.guardrailId} is set but no ApplyGuardrail send function was supplied`);
      return bedrockModerator({
        guardrailId: settings.guardrailId,
        guardrailVersion: settings.guardrailVersion,
        send: deps.bedrockSend,
      });
    case 'moderation-api': {
      const { credential } = settings;
      if ('key' in credential)
        return openAiModerationModerator({ url: settings.url, apiKey: credential.key, fetch: deps.fetch });
      const { readSecret } = deps;
      const { secretId } = credential;
      if (!readSecret) throw new Error(`${ENV.moderationKeySecretId} is set but no secret reader was supplied`);
      return openAiModerationModerator({ url: settings.url, apiKey: () => readSecret(secretId), fetch: deps.fetch });
    }
    case 'local':
      return localModerator();
  }
}

/**
 * The caller asked for moderation, so an engine that cannot answer fails the request closed
 * (503) instead of letting unmoderated content through. A client abort stays an abort.
 */
async function unavailableOnFailure<T>(run: () => Promise<T>, signal: AbortSignal): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (signal.aborted || error instanceof ChatError) throw error;
    throw moderationUnavailable(error);
  }
}

/** The engine's own error stays on `cause` for the logs; its text may name internal resources. */
const moderationUnavailable = (cause: unknown) =>
  new ChatError('dependency_unavailable', 'Content moderation is unavailable; try again later', { cause });

const unique = (values: readonly (string | undefined)[]) => [...new Set(values.filter((v): v is string => !!v))];
