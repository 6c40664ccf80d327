import { METRIC } from '../observability/metric-names.js';
import { publishMetrics } from '../observability/metrics.js';
import type { AttemptTiming, MeterObserver } from '../observability/usage-metrics.js';
import { costMicroUsd, tokenParts, unitCostMicroUsd, type Cost, type TokenUsage } from '../catalog/model-catalog.js';
import { logger } from '../config/logger.js';
import type { Usage } from '../providers/chat-types.js';
import type { UsagePurpose, UsageUnit } from '../store/usage-items.js';
import { recordUsageBatched, type UsageEntry } from './usage-ledger.js';

/** One upstream attempt of a model call as the meter reads it (the chat router's Attempt is one). */
export interface MeteredAttempt {
  readonly target: { readonly model: string; readonly provider: string };
  readonly durationMs: number;
  readonly failure?: { readonly status?: number; readonly kind: string };
  readonly usage?: Usage;
  readonly firstTokenMs?: number;
  readonly outcome?: string;
}

/** One upstream search as the meter reads it (search-types.ts's SearchAttempt is one). */
export interface MeteredSearch {
  readonly provider: string;
  readonly type: string;
  readonly status: number;
  readonly outcome: string;
  readonly costMicroUsd: number;
  readonly estimated: boolean;
}

/** What an arena call is part of; each set tag becomes a flat field of every entry it meters. */
export interface UsageTags {
  readonly sessionId?: string;
  readonly round?: number;
  readonly agent?: string;
  readonly purpose?: UsagePurpose;
}

export interface MeterContext {
  readonly requestId: string;
  readonly accountId: string;
  readonly keyId?: string;
  readonly route: string;
  /** When the request started: fixes every entry's time, so rewrites are idempotent. */
  readonly at: Date;
  readonly tags?: UsageTags;
}

/**
 * Tokens as the provider reported them, or an estimate flagged as one. The parts are inside the
 * two counts (catalog/prices.ts's TokenUsage): cache reads and writes in the prompt, reasoning
 * in the completion.
 */
export interface MeteredUsage extends TokenUsage {
  readonly estimated: boolean;
}

/** One piece of non-token work, as `Meter.work` records it. */
export interface MeteredWork {
  /** The priced id, `<provider>/<upstream model>[/<variant>]` (see catalog/unit-prices.ts). */
  readonly model: string;
  readonly provider: string;
  readonly unit: UsageUnit;
  readonly quantity: number;
  /** The upstream's HTTP status (0 when none was received). */
  readonly status: number;
  /** `ok`, or the failure class. */
  readonly outcome: string;
  readonly cost?: Cost;
  /** True when the quantity is the gateway's count because the upstream reported none. */
  readonly estimated?: boolean;
}

const WRITE_TRIES = 3;

/** Where finished entries go: the usage ledger in a deployment, a list in a test. */
export type UsageSink = (entry: UsageEntry) => Promise<void>;

/**
 * Collects one ledger entry per upstream attempt or cache hit of a request, then writes them
 * after the response. Entries are keyed by request id and sequence, and the ledger writer
 * puts each only if its key is new (totals are derived from the ledger later), so a retried
 * write can never count twice, whether or not the failed attempt had landed.
 */
/** Fields of every entry of a request that only its end tells. */
export type RequestAnnotation = Pick<UsageEntry, 'guardrails'>;

export class Meter {
  private readonly entries: UsageEntry[] = [];
  private annotation?: () => RequestAnnotation;

  /**
   * `settleAttempt` hears each upstream attempt's metered cost, once, in order: what a budget
   * reserved for the call is settled to it (lambdas/usage/budget-holds.ts).
   */
  constructor(
    private readonly context: MeterContext,
    private readonly sink: UsageSink = recordUsageBatched,
    private readonly observe: MeterObserver = () => {},
    private readonly settleAttempt: (costMicroUsd: number) => void = () => {},
  ) {}

  attempt(attempt: MeteredAttempt, estimate?: () => MeteredUsage): void {
    const usage = attempt.usage ? fromProvider(attempt.usage) : (estimate?.() ?? NONE);
    const timing = { durationMs: attempt.durationMs, firstTokenMs: attempt.firstTokenMs };
    this.add(
      {
        model: attempt.target.model,
        provider: attempt.target.provider,
        usage,
        cached: false,
        status: attempt.failure ? (attempt.failure.status ?? 0) : 200,
        outcome: attempt.outcome ?? (attempt.failure ? attempt.failure.kind : 'ok'),
      },
      timing,
    );
    this.settleAttempt(this.entries.at(-1)!.costMicroUsd);
  }

  /**
   * A web search: model `<provider>/<type>` (so byModel separates them), no tokens, the
   * provider's stated cost (or the list price, flagged estimated), unit `search`.
   */
  search(attempt: MeteredSearch): void {
    this.add({
      model: `${attempt.provider}/${attempt.type}`,
      provider: attempt.provider,
      usage: { promptTokens: 0, completionTokens: 0, estimated: attempt.estimated },
      cached: false,
      status: attempt.status,
      outcome: attempt.outcome,
      cost: { microUsd: attempt.costMicroUsd, priced: true },
      unit: { unit: 'search', quantity: 1 },
    });
  }

  /**
   * Work counted in units rather than tokens (speech characters, songs, video seconds, fashion
   * credits): no tokens, priced from the catalog's unit prices unless the cost is known
   * otherwise (a failed fashion prediction costs 0 by rule).
   */
  work(item: MeteredWork): void {
    this.add({
      model: item.model,
      provider: item.provider,
      usage: { ...NONE, estimated: item.estimated ?? false },
      cached: false,
      status: item.status,
      outcome: item.outcome,
      cost: item.cost ?? unitCostMicroUsd(item.model, item.unit, item.quantity),
      unit: { unit: item.unit, quantity: item.quantity },
    });
  }

  /** A cache hit costs nothing but is still a metered request. */
  cacheHit(model: string, provider: string, usage: Usage): void {
    this.add({
      model,
      provider,
      usage: fromProvider(usage),
      cached: true,
      status: 200,
      outcome: 'cache_hit',
      cost: { microUsd: 0, priced: true },
    });
  }

  get recorded(): readonly UsageEntry[] {
    return this.entries;
  }

  /**
   * What is known of the request as a whole only once it has answered (its guardrails'
   * outcomes): read at `flush`, after the response, and written on every entry.
   */
  annotate(annotation: () => RequestAnnotation): void {
    this.annotation = annotation;
  }

  async flush(): Promise<void> {
    const annotation = definedTags(this.annotation?.() ?? {});
    await Promise.all(this.entries.splice(0).map((entry) => writeEntry({ ...entry, ...annotation }, this.sink)));
  }

  private add(
    item: {
      model: string;
      provider: string;
      usage: MeteredUsage;
      cached: boolean;
      status: number;
      outcome: string;
      /** A cost known otherwise: a cache hit is free by rule, a search costs what the provider says. */
      cost?: Cost;
      unit?: { unit: UsageUnit; quantity: number };
    },
    timing?: AttemptTiming,
  ): void {
    const { usage } = item;
    // A model the catalog cannot price is metered at 0, but flagged, so reports can say how
    // much usage has no cost.
    const cost = item.cost ?? costMicroUsd(item.model, usage);
    const entry: UsageEntry = {
      requestId: this.context.requestId,
      sequence: this.entries.length,
      accountId: this.context.accountId,
      keyId: this.context.keyId,
      route: this.context.route,
      model: item.model,
      provider: item.provider,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      ...partsOf(usage),
      costMicroUsd: cost.microUsd,
      priced: cost.priced,
      estimated: usage.estimated,
      cached: item.cached,
      status: item.status,
      outcome: item.outcome,
      at: this.context.at.toISOString(),
      ...definedTags(this.context.tags),
      ...item.unit,
      ...timingsOf(timing),
    };
    this.entries.push(entry);
    this.observe(entry, timing);
  }
}

/** An attempt's timings as the ledger keeps them (whole milliseconds), absent when not timed. */
function timingsOf(timing: AttemptTiming | undefined): Pick<UsageEntry, 'durationMs' | 'firstTokenMs'> {
  if (timing === undefined) return {};
  const { durationMs, firstTokenMs } = timing;
  return {
    durationMs: Math.max(0, Math.round(durationMs)),
    ...(firstTokenMs !== undefined ? { firstTokenMs: Math.max(0, Math.round(firstTokenMs)) } : {}),
  };
}

/** Only the tags that are set: an entry has no attribute at all for a tag that is not. */
function definedTags<T extends object>(tags: T = {} as T): T {
  return Object.fromEntries(Object.entries(tags).filter(([, value]) => value !== undefined)) as T;
}

const NONE: MeteredUsage = { promptTokens: 0, completionTokens: 0, estimated: false };

function fromProvider(usage: Usage): MeteredUsage {
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens,
    cacheWriteTokens: usage.prompt_tokens_details?.cache_write_tokens,
    cacheWrite1hTokens: usage.prompt_tokens_details?.cache_write_1h_tokens,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens,
    estimated: false,
  };
}

/**
 * The parts of an entry's tokens as the ledger keeps them: the counts the cost was computed
 * from (so finance can price an entry again), each absent when there were none.
 */
function partsOf(
  usage: TokenUsage,
): Pick<UsageEntry, 'cachedTokens' | 'cacheWriteTokens' | 'cacheWrite1hTokens' | 'reasoningTokens'> {
  const { cachedTokens, cacheWriteTokens, cacheWrite1hTokens, reasoningTokens } = tokenParts(usage);
  const parts = { cachedTokens, cacheWriteTokens, cacheWrite1hTokens, reasoningTokens };
  return Object.fromEntries(Object.entries(parts).filter(([, n]) => n > 0));
}

/** About four characters a token: the estimate used only when a provider reports nothing. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

async function writeEntry(entry: UsageEntry, sink: UsageSink): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await sink(entry);
      return;
    } catch (error) {
      if (tries >= WRITE_TRIES) {
        // The ledger is the bill: leave a line finance can reconcile from, and count it for the alarm.
        logger.error('usage entry not written', { entry: JSON.stringify(entry), error: (error as Error).message });
        publishMetrics([{ name: METRIC.usageNotRecorded, unit: 'Count', value: 1, dimensions: {} }]);
        return;
      }
    }
  }
}
