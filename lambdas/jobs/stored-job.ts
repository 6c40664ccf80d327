import { BUDGET_PERIODS, type HeldBudget, type ScopedBudget } from '../store/budget-counters.js';
import {
  JOB_PHASES,
  WEBHOOK_STATES,
  type JobError,
  type JobRecord,
  type JsonObject,
  type WebhookDelivery,
} from './job-record.js';

/**
 * A stored job item this code cannot read. The jobs table outlives deploys: an item may have
 * been written by another version of the gateway or by hand, so a read checks what it takes
 * instead of trusting it, and fails naming the attribute rather than answering with a field
 * that is not there.
 */
export class StoredJobError extends Error {
  constructor(
    readonly jobId: string,
    /** `polls`, `details.duration`, `watchers["w1"]`... */
    readonly attribute: string,
    expected: string,
    found: unknown,
  ) {
    super(`stored job ${jobId}: ${attribute} must be ${expected}, found ${describe(found)}`);
    this.name = 'StoredJobError';
  }
}

/**
 * One object of a stored job (the item, its `details`, its `result`), read attribute by
 * attribute. Each read checks one value and nothing under it that it does not return, so a
 * record costs one pass over the attributes its reader takes: records are read on the request
 * path.
 */
export class StoredAttributes {
  private constructor(
    readonly jobId: string,
    private readonly path: string,
    private readonly fields: Readonly<Record<string, unknown>>,
  ) {}

  /** `path` names the object in errors (`details`); '' for the item itself. */
  static of(jobId: string, path: string, value: unknown): StoredAttributes {
    if (!isPlainObject(value)) throw new StoredJobError(jobId, path || 'the item', 'an object', value);
    return new StoredAttributes(jobId, path, value);
  }

  has(name: string): boolean {
    return this.fields[name] !== undefined;
  }

  text(name: string): string {
    const value = this.fields[name];
    if (typeof value !== 'string') throw this.refused(name, 'a string', value);
    return value;
  }

  optionalText(name: string): string | undefined {
    return this.has(name) ? this.text(name) : undefined;
  }

  /** A finite number (DynamoDB holds no other, but a hand-written item may hold a string). */
  number(name: string): number {
    const value = this.fields[name];
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.refused(name, 'a number', value);
    return value;
  }

  optionalNumber(name: string): number | undefined {
    return this.has(name) ? this.number(name) : undefined;
  }

  /** One of `values`, with its own type: a phase, a model id, a duration. */
  oneOf<const T extends string | number | boolean>(name: string, values: readonly T[]): T {
    const value = this.fields[name];
    const found = values.find((candidate) => candidate === value);
    if (found === undefined) throw this.refused(name, `one of ${values.join(', ')}`, value);
    return found;
  }

  object(name: string): StoredAttributes {
    return StoredAttributes.of(this.jobId, this.named(name), this.fields[name]);
  }

  /** An object whose members are left to whoever reads them (a kind's `details`). */
  json(name: string): JsonObject {
    const value = this.fields[name];
    if (!isPlainObject(value)) throw this.refused(name, 'an object', value);
    return value;
  }

  optionalJson(name: string): JsonObject | undefined {
    return this.has(name) ? this.json(name) : undefined;
  }

  texts(name: string): string[] {
    const value = this.fields[name];
    if (!Array.isArray(value)) throw this.refused(name, 'a list', value);
    return value.map((member: unknown, i) => {
      if (typeof member !== 'string')
        throw new StoredJobError(this.jobId, `${this.named(name)}[${i}]`, 'a string', member);
      return member;
    });
  }

  /** A list of objects, each read by its own reader. */
  list(name: string): StoredAttributes[] {
    const value = this.fields[name];
    if (!Array.isArray(value)) throw this.refused(name, 'a list', value);
    return value.map((member: unknown, i) => StoredAttributes.of(this.jobId, `${this.named(name)}[${i}]`, member));
  }

  /** A map of names to numbers (watcher id → the epoch milliseconds its slot lapses). */
  numbers(name: string): Record<string, number> {
    const map = this.object(name);
    const out: Record<string, number> = {};
    for (const key of Object.keys(map.fields)) out[key] = map.number(key);
    return out;
  }

  private named(name: string): string {
    const member = /^[A-Za-z_$][\w$]*$/.test(name) ? name : `[${JSON.stringify(name)}]`;
    if (!this.path) return member;
    return member.startsWith('[') ? `${this.path}${member}` : `${this.path}.${member}`;
  }

  private refused(name: string, expected: string, found: unknown): StoredJobError {
    return new StoredJobError(this.jobId, this.named(name), expected, found);
  }
}

/**
 * The item read under `jobId` as a JobRecord: every attribute the record declares is checked,
 * the kind's `details` and `result` only as objects (its driver reads their members: JobReaders
 * in job-driver.ts). Anything else on the item (its keys, its index attributes) is left out.
 */
export function jobRecordOf(jobId: string, item: Readonly<Record<string, unknown>>): JobRecord {
  const stored = StoredAttributes.of(jobId, '', item);
  const keyId = stored.optionalText('keyId');
  const upstreamStatus = stored.optionalText('upstreamStatus');
  const details = stored.optionalJson('details');
  const result = stored.optionalJson('result');
  const error = stored.has('error') ? jobErrorOf(stored.object('error')) : undefined;
  const endedAt = stored.optionalText('endedAt');
  const pollLeaseUntil = stored.optionalNumber('pollLeaseUntil');
  const pollLeaseHolder = stored.optionalText('pollLeaseHolder');
  const watchers = stored.has('watchers') ? stored.numbers('watchers') : undefined;
  const webhookUrl = stored.optionalText('webhookUrl');
  const webhook = stored.has('webhook') ? webhookDeliveryOf(stored.object('webhook')) : undefined;
  const budgetHolds = stored.has('budgetHolds') ? stored.list('budgetHolds').map(heldBudgetOf) : undefined;
  return {
    jobId: stored.text('jobId'),
    kind: stored.text('kind'),
    accountId: stored.text('accountId'),
    ...(keyId === undefined ? {} : { keyId }),
    requestId: stored.text('requestId'),
    route: stored.text('route'),
    provider: stored.text('provider'),
    model: stored.text('model'),
    upstreamJobId: stored.text('upstreamJobId'),
    phase: stored.oneOf('phase', JOB_PHASES),
    ...(upstreamStatus === undefined ? {} : { upstreamStatus }),
    ...(details === undefined ? {} : { details }),
    ...(result === undefined ? {} : { result }),
    ...(error === undefined ? {} : { error }),
    createdAt: stored.text('createdAt'),
    updatedAt: stored.text('updatedAt'),
    ...(endedAt === undefined ? {} : { endedAt }),
    polls: stored.number('polls'),
    expiresAt: stored.number('expiresAt'),
    ...(pollLeaseUntil === undefined ? {} : { pollLeaseUntil }),
    ...(pollLeaseHolder === undefined ? {} : { pollLeaseHolder }),
    ...(watchers === undefined ? {} : { watchers }),
    ...(webhookUrl === undefined ? {} : { webhookUrl }),
    ...(webhook === undefined ? {} : { webhook }),
    ...(budgetHolds === undefined ? {} : { budgetHolds }),
  };
}

function heldBudgetOf(held: StoredAttributes): HeldBudget {
  const expiresAt = held.optionalNumber('expiresAt');
  const budget = held.has('budget') ? scopedBudgetOf(held.object('budget')) : undefined;
  return {
    scope: held.text('scope'),
    periodStart: held.text('periodStart'),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    amountMicroUsd: held.number('amountMicroUsd'),
    ...(budget === undefined ? {} : { budget }),
  };
}

function scopedBudgetOf(scoped: StoredAttributes): ScopedBudget {
  const limits = scoped.object('budget');
  const shards = scoped.optionalNumber('shards');
  // Whose account, and its budget webhook as the job's request found it: the crossings its
  // settlement finds are posted there (lambdas/usage/budget-notices.ts).
  const accountId = scoped.optionalText('accountId');
  const webhookUrl = scoped.optionalText('webhookUrl');
  return {
    owner: scoped.oneOf('owner', ['key', 'account'] as const),
    scope: scoped.text('scope'),
    budget: { limitMicroUsd: limits.number('limitMicroUsd'), period: limits.oneOf('period', BUDGET_PERIODS) },
    ...(shards === undefined ? {} : { shards }),
    ...(accountId === undefined ? {} : { accountId }),
    ...(webhookUrl === undefined ? {} : { webhookUrl }),
  };
}

function webhookDeliveryOf(webhook: StoredAttributes): WebhookDelivery {
  const lastStatus = webhook.optionalNumber('lastStatus');
  return {
    status: webhook.oneOf('status', WEBHOOK_STATES),
    attempts: webhook.number('attempts'),
    ...(lastStatus === undefined ? {} : { lastStatus }),
  };
}

/** What a watcher's read projects (job-watchers.ts): who owns the job, how far it is, its slots. */
export type WatchedJob = Pick<JobRecord, 'jobId' | 'accountId' | 'phase' | 'watchers'>;

export function watchedJobOf(jobId: string, item: Readonly<Record<string, unknown>>): WatchedJob {
  const stored = StoredAttributes.of(jobId, '', item);
  const watchers = stored.has('watchers') ? stored.numbers('watchers') : undefined;
  return {
    jobId: stored.text('jobId'),
    accountId: stored.text('accountId'),
    phase: stored.oneOf('phase', JOB_PHASES),
    ...(watchers === undefined ? {} : { watchers }),
  };
}

const jobErrorOf = (error: StoredAttributes): JobError => ({
  name: error.text('name'),
  message: error.text('message'),
});

/** A DynamoDB map: not a list, and not the Set or bytes a set or binary attribute reads as. */
function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (typeof value !== 'object') return typeof value;
  // A string set reads as a Set, a binary attribute as a Uint8Array: say which.
  return isPlainObject(value) ? 'an object' : `a ${Object.prototype.toString.call(value).slice(8, -1)}`;
}
