import type { StandInCredentials } from './signature-check.js';

export const LOCAL_ACCOUNT: string;

export interface IssuedSession {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

export interface TenantSession {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly expiresAt: number;
  /** The assumed-role ARN refusals name. */
  readonly arn: string;
}

export interface StandInRefusal {
  readonly type: string;
  readonly message: string;
}

/** Physical table name → what a tenant session may do there (lib/tenant-access-policy.ts). */
export type TenantTableReads = Readonly<
  Record<string, { readonly actions: readonly string[]; readonly leadingKeys: readonly string[] }>
>;

export function issueTenantSession(
  master: StandInCredentials,
  request: {
    roleArn: string;
    sessionName: string;
    tags: Readonly<Record<string, string>>;
    durationSeconds: number;
    now?: number;
  },
): IssuedSession;
export function openTenantSession(
  master: StandInCredentials,
  accessKeyId: string,
  sessionToken: string,
  now?: number,
): TenantSession | StandInRefusal;
export function stringLike(pattern: string, value: string, tags: Readonly<Record<string, string>>): boolean;
export function accessDenied(session: TenantSession, action: string, resource: string): StandInRefusal;
export function dynamoDbRefusal(
  session: TenantSession,
  reads: TenantTableReads,
  operation: string,
  input: Readonly<Record<string, unknown>>,
): StandInRefusal | undefined;
