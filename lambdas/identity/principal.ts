/** Who is calling, once authenticated. Every record read or written is scoped by `accountId`. */
export type Principal =
  | { readonly kind: 'secretKey'; readonly accountId: string; readonly keyId: string; readonly rateLimit: number }
  | {
      readonly kind: 'publishableKey';
      readonly accountId: string;
      readonly keyId: string;
      readonly rateLimit: number;
      readonly origin: string;
    }
  | { readonly kind: 'session'; readonly accountId: string; readonly email: string; readonly sessionHash: string }
  | { readonly kind: 'admin' };

export type AccountPrincipal = Exclude<Principal, { kind: 'admin' }>;

/** The account a call acts for; routes reaching here have authenticated an account principal. */
export function accountIdOf(principal: Principal | undefined): string {
  if (!principal || principal.kind === 'admin') throw new Error('route reached without an account principal');
  return principal.accountId;
}
