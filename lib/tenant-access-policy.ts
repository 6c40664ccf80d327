/**
 * What a tenant session may read, as data: the stack turns it into the tenant-access role's
 * policy (lib/constructs/tenant-access-role.ts) and the local stand-ins enforce the same data on
 * the credentials the STS stand-in issues (local/standins/tenant-sessions.mjs), so what the
 * laptop refuses is what IAM refuses. Data only.
 */
import { SECRET_ACCOUNT_TAG, TENANT_SESSION_TAG } from '../lambdas/store/tenant-tags.js';
import type { TableName } from '../lambdas/store/table-schema.js';

/** The IAM policy variable of the session's account tag. */
export const PRINCIPAL_ACCOUNT = `\${aws:PrincipalTag/${TENANT_SESSION_TAG}}`;

export interface TenantTableRead {
  readonly table: TableName;
  readonly actions: readonly string[];
  /** `dynamodb:LeadingKeys` patterns (StringLike, every key of a call must match one). */
  readonly leadingKeys: readonly string[];
}

/**
 * The account's partitions only. Usage: its totals (`ACCOUNT#<id>#TOTALS`) and ledger shards
 * (`ACCOUNT#<id>#L<n>`), read by Query. Jobs table: its session records and leaderboards
 * (`ACCOUNT#<id>`), its job records (`ACCOUNT#<id>#JOB#<job>`) and its arena sessions' logs
 * (`ACCOUNT#<id>#ARENA_SESSION#<session>`), read by GetItem and Query. Account ids hold no `#`,
 * so `ACCOUNT#<id>#*` reaches no other account's partitions.
 */
export const TENANT_TABLE_READS: readonly TenantTableRead[] = [
  { table: 'usage', actions: ['dynamodb:Query'], leadingKeys: [`ACCOUNT#${PRINCIPAL_ACCOUNT}#*`] },
  {
    table: 'jobs',
    actions: ['dynamodb:GetItem', 'dynamodb:Query'],
    leadingKeys: [`ACCOUNT#${PRINCIPAL_ACCOUNT}`, `ACCOUNT#${PRINCIPAL_ACCOUNT}#*`],
  },
];

/** Provider-key secrets, read only where the secret's account tag is the session's. */
export const TENANT_SECRET_READ = {
  actions: ['secretsmanager:GetSecretValue'],
  resourceTag: SECRET_ACCOUNT_TAG,
} as const;

/** The one session tag a tenant session must carry, and may carry alone. */
export const TENANT_SESSION_TAG_KEY = TENANT_SESSION_TAG;

/**
 * The tag on the roles of the functions that open tenant sessions, its value the stack's id: the
 * tenant-access role trusts this account's roles that carry it (lib/constructs/tenant-access-role.ts).
 */
export const TENANT_READER_TAG = 'gateway:tenant-reader';

/** What a function's role needs to open a tenant session: both actions, on the tenant-access role only. */
export const TENANT_SESSION_ACTIONS = ['sts:AssumeRole', 'sts:TagSession'] as const;

/** The longest session the role allows; the functions ask for 15 minutes (lambdas/store/tenant-credentials.ts). */
export const TENANT_MAX_SESSION_SECONDS = 3600;
