import { keyBudgets, notifiedBudgets, type ScopedBudget } from '../store/budget-counters.js';
import { accountBudgets } from '../store/budget-shards.js';
import type { RouteSpec } from '../../lib/routes.js';
import type { GatewayConfiguration } from '../config/configuration.js';
import type { AccountPrincipal, Principal } from '../identity/principal.js';
import type { GatewayRequest } from './request.js';

/**
 * What the middlewares learn about one call as they run (middlewares/state.ts keeps it beside
 * the Lambda event). A handler never sees this: it gets a GatewayCall.
 */
export interface CallState {
  readonly route: RouteSpec;
  readonly req: GatewayRequest;
  /** X-Request-ID: the caller's if it sent a sane one, else ours. */
  readonly requestId: string;
  readonly startedAt: Date;
  /** This instance's configuration (lambdas/config/configuration.ts), for the features' deployment factories. */
  readonly config: GatewayConfiguration;
  /** Set by the authentication middleware on routes with schemes. */
  principal?: Principal;
  /** Headers every response of this call carries (request id, rate limit, CORS). */
  readonly responseHeaders: Record<string, string>;
  /**
   * Aborted when the client disconnects (streaming), when the function is about to time out,
   * and once the response is written: upstream calls pass it on, so nothing outlives the call.
   */
  readonly signal: AbortSignal;
  /** Epoch ms at which the function is stopped, when the runtime says (Lambda's context does). */
  readonly deadline?: number;
  /** Ends the call's work: aborts `signal` and stops the timeout watch. */
  readonly finish: () => void;
  /**
   * Work to run once the response is complete (usage writes): off the client's path. On
   * streaming routes it runs after the last byte; Lambda keeps the function alive for it.
   */
  readonly afterResponse: (() => Promise<void>)[];
}

/**
 * The call as a handler gets it: its validated body, and the principal its route's schemes
 * promise (http/define-handler.ts derives `Caller` from the manifest entry, so an authenticated
 * route's handler needs no check or cast to know who calls).
 */
export interface GatewayCall<
  Body = undefined,
  Caller extends Principal | undefined = Principal | undefined,
> extends Readonly<Omit<CallState, 'principal'>> {
  readonly principal: Caller;
  readonly body: Body;
}

/** A call on a route that only accounts reach (keys or a dashboard session). */
export type AccountCall<Body = undefined> = GatewayCall<Body, AccountPrincipal>;

/**
 * The budgets the caller's upstream calls reserve against (lambdas/usage/budget-holds.ts): its
 * key's, as the key directory holds the record, then its account's. A dashboard session has no
 * key, so only the account's.
 */
export function budgetsOf(call: { readonly principal: AccountPrincipal }): ScopedBudget[] {
  const { principal } = call;
  const ofKey = principal.kind === 'session' ? [] : keyBudgets(principal.keyId, principal.budget);
  const budgets = [...ofKey, ...accountBudgets(principal.accountId, principal.accountBudget)];
  return notifiedBudgets(budgets, principal.accountId, principal.budgetWebhookUrl);
}

/** The key's opt-in to keeping its requests' content, as the chat core takes it (none for a session). */
export function contentLogOf(call: { readonly principal: AccountPrincipal }): {
  contentLog?: { readonly retentionDays: number };
} {
  const { principal } = call;
  return principal.kind !== 'session' && principal.contentLog ? { contentLog: principal.contentLog } : {};
}

/** The caller's account as the cores see it: the account, and the key when a key called. */
export function accountOf(call: { readonly principal: AccountPrincipal }): { accountId: string; keyId?: string } {
  const { principal } = call;
  return principal.kind === 'session'
    ? { accountId: principal.accountId }
    : { accountId: principal.accountId, keyId: principal.keyId };
}
