import type { ContentLog } from '../store/api-keys.js';
import type { StoredBudget } from '../store/budget-counters.js';

/**
 * Who is calling, once authenticated. Every record read or written is scoped by `accountId`. A
 * key's `budget` is its record's as the key directory holds it (absent: none), so a change
 * reaches every instance within the directory's TTL (lambdas/identity/key-directory.ts). The
 * account's `accountBudget` is there on routes that reserve budgets, from the account budget
 * directory (account-budget-directory.ts), with the same TTL, as is its `budgetWebhookUrl`;
 * elsewhere neither is read.
 */
export type Principal =
  | {
      readonly kind: 'secretKey';
      readonly accountId: string;
      readonly keyId: string;
      readonly rateLimit: number;
      readonly budget?: StoredBudget;
      readonly accountBudget?: StoredBudget;
      /** Where the account's budget crossings are posted (with accountBudget, on the same routes). */
      readonly budgetWebhookUrl?: string;
      /** The key's opt-in to keeping its requests' content (absent: not kept). */
      readonly contentLog?: ContentLog;
    }
  | {
      readonly kind: 'publishableKey';
      readonly accountId: string;
      readonly keyId: string;
      readonly rateLimit: number;
      readonly budget?: StoredBudget;
      readonly accountBudget?: StoredBudget;
      /** Where the account's budget crossings are posted (with accountBudget, on the same routes). */
      readonly budgetWebhookUrl?: string;
      /** The key's opt-in to keeping its requests' content (absent: not kept). */
      readonly contentLog?: ContentLog;
      readonly origin: string;
    }
  | {
      readonly kind: 'session';
      readonly accountId: string;
      readonly email: string;
      readonly sessionHash: string;
      readonly accountBudget?: StoredBudget;
      /** Where the account's budget crossings are posted (with accountBudget, on the same routes). */
      readonly budgetWebhookUrl?: string;
    }
  | { readonly kind: 'admin' };

export type AccountPrincipal = Exclude<Principal, { kind: 'admin' }>;

/**
 * The principal a route's handler is given, from the schemes its manifest entry accepts: none
 * for a public route, else exactly the kinds those schemes authenticate (a scheme and the
 * principal it yields share a name).
 */
export type PrincipalFor<Schemes extends readonly string[]> = Schemes extends readonly []
  ? undefined
  : Extract<Principal, { readonly kind: Schemes[number] }>;
