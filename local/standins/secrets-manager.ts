/**
 * Secrets Manager stand-in for the local runtime: the subset the gateway uses (create, read,
 * rotate a value, delete, describe, list), with the real service's error names so store code
 * behaves the same against it as against AWS.
 *
 * Values are kept in plain text in `<dataDir>/secrets-manager.json` (mode 0600): this runs
 * on the developer's own machine and holds their own keys, exactly as a `.env` file would.
 * The KMS key id is recorded for DescribeSecret but nothing is encrypted. Every call must be
 * signed with the runtime's credentials (aws-json-server.ts): the values are the admin token
 * and provider keys, and any process on the machine can reach loopback.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  AwsJsonError,
  epochSeconds,
  loadJsonState,
  optionalString,
  requireString,
  saveJsonState,
  startAwsJsonServer,
  type AwsJsonInput,
  type AwsJsonServer,
  type TenantCheck,
} from './aws-json-server.js';
import { accessDenied } from './tenant-sessions.mjs';
import type { StandInCredentials } from './signature-check.js';

export interface SecretsManagerStandInOptions {
  /** Folder for the state file; created if missing. */
  readonly dataDir: string;
  readonly port?: number;
  /** Clock in epoch ms; tests move it to expire recovery windows. Signatures keep real time. */
  readonly now?: () => number;
  /** What every call must be signed with. @default the process's AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY */
  readonly credentials?: StandInCredentials;
  /**
   * What a tenant session may read (lib/tenant-access-policy.ts): GetSecretValue on secrets
   * named under `namePrefix` whose `resourceTag` tag is the session's account tag.
   * @default none: a tenant session may read nothing
   */
  readonly tenantReads?: { readonly namePrefix: string; readonly resourceTag: string; readonly sessionTag: string };
}

interface Tag {
  Key: string;
  Value: string;
}

interface SecretVersion {
  id: string;
  /** Exactly one of string / binary (base64, as it travels in JSON). */
  string?: string;
  binary?: string;
  created: number;
  stages: string[];
}

interface StoredSecret {
  arn: string;
  name: string;
  description?: string;
  kmsKeyId?: string;
  tags: Tag[];
  created: number;
  lastChanged: number;
  lastAccessed?: number;
  /** Set while scheduled for deletion: when DeleteSecret ran, and when the secret goes away. */
  deletedAt?: number;
  purgeAt?: number;
  versions: SecretVersion[];
}

interface State {
  version: 1;
  secrets: Record<string, StoredSecret>;
}

const STATE_FILE = 'secrets-manager.json';
const NAME_PATTERN = /^[A-Za-z0-9/_+=.@!-]{1,512}$/;
const MAX_SECRET_BYTES = 65536;
const ARN_SUFFIX_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DAY_MS = 86_400_000;

export async function startSecretsManagerStandIn(options: SecretsManagerStandInOptions): Promise<AwsJsonServer> {
  const file = join(options.dataDir, STATE_FILE);
  const now = options.now ?? Date.now;
  const state = loadJsonState<State>(file, () => ({ version: 1, secrets: {} }));
  const save = (): void => saveJsonState(file, state);

  function live(): StoredSecret[] {
    // A recovery window that ran out behaves like a forced delete.
    const expired = Object.values(state.secrets).filter((s) => s.purgeAt !== undefined && s.purgeAt <= now());
    for (const s of expired) delete state.secrets[s.name];
    if (expired.length) save();
    return Object.values(state.secrets);
  }

  function find(input: AwsJsonInput): StoredSecret {
    const id = requireString(input, 'SecretId');
    // A partial ARN (without the random suffix) is accepted, as AWS does.
    const secret = id.startsWith('arn:')
      ? live().find((s) => s.arn === id || s.arn.slice(0, -7) === id)
      : live().find((s) => s.name === id);
    if (!secret)
      throw new AwsJsonError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  }

  function findWritable(input: AwsJsonInput): StoredSecret {
    const secret = find(input);
    if (secret.deletedAt !== undefined) {
      throw new AwsJsonError(
        'InvalidRequestException',
        "You can't perform this operation on the secret because it was marked for deletion.",
      );
    }
    return secret;
  }

  function addVersion(secret: StoredSecret, input: AwsJsonInput, required: boolean): SecretVersion | undefined {
    const value = readValue(input, required);
    const token = optionalString(input, 'ClientRequestToken');
    const existing = token ? secret.versions.find((v) => v.id === token) : undefined;
    if (existing) {
      // A retried request with the same token is idempotent; reusing a token for new content is not.
      if (existing.string === value?.string && existing.binary === value?.binary) return existing;
      throw new AwsJsonError(
        'ResourceExistsException',
        "You can't modify an existing version, you can only create a new version.",
      );
    }
    if (!value) return undefined;
    const version: SecretVersion = { id: token ?? randomUUID(), ...value, created: now(), stages: ['AWSCURRENT'] };
    // Only current and previous are kept: nothing here reads older versions.
    secret.versions = secret.versions
      .filter((v) => v.stages.includes('AWSCURRENT'))
      .map((v) => ({ ...v, stages: ['AWSPREVIOUS'] }));
    secret.versions.push(version);
    secret.lastChanged = now();
    return version;
  }

  const describe = (s: StoredSecret) => ({
    ARN: s.arn,
    Name: s.name,
    Description: s.description,
    KmsKeyId: s.kmsKeyId,
    Tags: s.tags.length ? s.tags : undefined,
    CreatedDate: epochSeconds(s.created),
    LastChangedDate: epochSeconds(s.lastChanged),
    LastAccessedDate: s.lastAccessed === undefined ? undefined : epochSeconds(s.lastAccessed),
    DeletedDate: s.deletedAt === undefined ? undefined : epochSeconds(s.deletedAt),
    VersionIdsToStages: Object.fromEntries(s.versions.map((v) => [v.id, v.stages])),
  });

  const operations = {
    CreateSecret(input: AwsJsonInput) {
      const name = requireString(input, 'Name');
      if (!NAME_PATTERN.test(name)) {
        throw new AwsJsonError(
          'InvalidParameterException',
          'Invalid name. Must be a valid name containing alphanumeric characters, or any of the following: -/_+=.@!',
        );
      }
      const taken = live().find((s) => s.name === name);
      if (taken?.deletedAt !== undefined) {
        throw new AwsJsonError(
          'InvalidRequestException',
          "You can't create this secret because a secret with this name is already scheduled for deletion.",
        );
      }
      if (taken)
        throw new AwsJsonError(
          'ResourceExistsException',
          `The operation failed because the secret ${name} already exists.`,
        );
      const secret: StoredSecret = {
        arn: `arn:aws:secretsmanager:local:000000000000:secret:${name}-${arnSuffix()}`,
        name,
        description: optionalString(input, 'Description'),
        kmsKeyId: optionalString(input, 'KmsKeyId'),
        tags: readTags(input),
        created: now(),
        lastChanged: now(),
        versions: [],
      };
      const version = addVersion(secret, input, false);
      state.secrets[name] = secret;
      save();
      return { ARN: secret.arn, Name: name, VersionId: version?.id };
    },

    GetSecretValue(input: AwsJsonInput) {
      const secret = findWritable(input);
      const versionId = optionalString(input, 'VersionId');
      const stage = optionalString(input, 'VersionStage') ?? (versionId ? undefined : 'AWSCURRENT');
      const version = secret.versions.find(
        (v) => (!versionId || v.id === versionId) && (!stage || v.stages.includes(stage)),
      );
      if (!version) {
        throw new AwsJsonError(
          'ResourceNotFoundException',
          `Secrets Manager can't find the specified secret value for ${versionId ? `VersionId: ${versionId}` : `staging label: ${stage}`}`,
        );
      }
      secret.lastAccessed = startOfDay(now());
      return {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: version.id,
        SecretString: version.string,
        SecretBinary: version.binary,
        VersionStages: version.stages,
        CreatedDate: epochSeconds(version.created),
      };
    },

    PutSecretValue(input: AwsJsonInput) {
      const secret = findWritable(input);
      const version = addVersion(secret, input, true) as SecretVersion;
      save();
      return { ARN: secret.arn, Name: secret.name, VersionId: version.id, VersionStages: version.stages };
    },

    DeleteSecret(input: AwsJsonInput) {
      const secret = find(input);
      const force = input.ForceDeleteWithoutRecovery === true;
      const window = input.RecoveryWindowInDays;
      if (force && window !== undefined) {
        throw new AwsJsonError(
          'InvalidParameterException',
          "You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.",
        );
      }
      if (force) {
        delete state.secrets[secret.name];
        save();
        return { ARN: secret.arn, Name: secret.name, DeletionDate: epochSeconds(now()) };
      }
      const days = window ?? 30;
      if (typeof days !== 'number' || !Number.isInteger(days) || days < 7 || days > 30) {
        throw new AwsJsonError('InvalidParameterException', 'RecoveryWindowInDays must be an integer from 7 to 30.');
      }
      if (secret.deletedAt !== undefined) {
        throw new AwsJsonError('InvalidRequestException', 'The secret is already scheduled for deletion.');
      }
      secret.deletedAt = now();
      secret.purgeAt = now() + days * DAY_MS;
      save();
      return { ARN: secret.arn, Name: secret.name, DeletionDate: epochSeconds(secret.purgeAt) };
    },

    DescribeSecret: (input: AwsJsonInput) => describe(find(input)),

    ListSecrets(input: AwsJsonInput) {
      const includeDeleted = input.IncludePlannedDeletion === true;
      const prefixes = readNameFilters(input);
      const all = live()
        .filter((s) => includeDeleted || s.deletedAt === undefined)
        .filter((s) => !prefixes || prefixes.some((p) => s.name.startsWith(p)))
        .sort((a, b) => a.created - b.created || a.name.localeCompare(b.name));
      const max = typeof input.MaxResults === 'number' ? Math.min(Math.max(1, input.MaxResults), 100) : 100;
      const start = Number(optionalString(input, 'NextToken') ?? '0');
      if (!Number.isInteger(start) || start < 0)
        throw new AwsJsonError('InvalidNextTokenException', 'The NextToken value is invalid.');
      const page = all.slice(start, start + max);
      return {
        SecretList: page.map(describe),
        NextToken: start + max < all.length ? String(start + max) : undefined,
      };
    },
  };

  const tenantReads = options.tenantReads;
  /**
   * The tenant-access role's statement: GetSecretValue on the provider-key name prefix where
   * `secretsmanager:ResourceTag/<tag>` equals `${aws:PrincipalTag/account}`. A secret that does
   * not exist has no tag to match, so it is refused the same way (AWS tells such a caller nothing).
   */
  const tenantRead: TenantCheck = (input, tenant) => {
    const id = requireString(input, 'SecretId');
    const secret = id.startsWith('arn:')
      ? live().find((s) => s.arn === id || s.arn.slice(0, -7) === id)
      : live().find((s) => s.name === id);
    const account = tenantReads ? tenant.tags[tenantReads.sessionTag] : undefined;
    const tag = secret?.tags.find((t) => t.Key === tenantReads?.resourceTag)?.Value;
    if (!secret || !tenantReads || !secret.name.startsWith(tenantReads.namePrefix) || !account || tag !== account) {
      const refusal = accessDenied(tenant, 'secretsmanager:GetSecretValue', secret?.arn ?? id);
      throw new AwsJsonError(refusal.type, refusal.message);
    }
  };

  return startAwsJsonServer({
    targetPrefix: 'secretsmanager',
    operations,
    port: options.port,
    credentials: options.credentials,
    tenantAccess: { GetSecretValue: tenantRead },
  });
}

function readValue(input: AwsJsonInput, required: boolean): Pick<SecretVersion, 'string' | 'binary'> | undefined {
  const string = optionalString(input, 'SecretString');
  const binary = optionalString(input, 'SecretBinary');
  if (string !== undefined && binary !== undefined) {
    throw new AwsJsonError(
      'InvalidParameterException',
      'You must provide either SecretString or SecretBinary, not both.',
    );
  }
  if (string === undefined && binary === undefined) {
    if (required)
      throw new AwsJsonError('InvalidParameterException', 'You must provide either SecretString or SecretBinary.');
    return undefined;
  }
  const size = string !== undefined ? Buffer.byteLength(string) : Buffer.from(binary as string, 'base64').length;
  if (size > MAX_SECRET_BYTES)
    throw new AwsJsonError('InvalidParameterException', 'The secret value exceeds 65536 bytes.');
  return string !== undefined ? { string } : { binary };
}

function readTags(input: AwsJsonInput): Tag[] {
  const tags = input.Tags ?? [];
  const valid =
    Array.isArray(tags) &&
    tags.every(
      (t) => typeof t === 'object' && t !== null && typeof t.Key === 'string' && typeof (t.Value ?? '') === 'string',
    );
  if (!valid) throw new AwsJsonError('InvalidParameterException', 'Tags must be a list of { Key, Value } strings.');
  return (tags as Tag[]).map((t) => ({ Key: t.Key, Value: t.Value ?? '' }));
}

/** Only the `name` filter (prefix match) is supported; other keys are rejected, not ignored. */
function readNameFilters(input: AwsJsonInput): string[] | undefined {
  const filters = input.Filters;
  if (filters === undefined) return undefined;
  if (!Array.isArray(filters)) throw new AwsJsonError('InvalidParameterException', 'Filters must be a list.');
  const prefixes: string[] = [];
  for (const f of filters as { Key?: unknown; Values?: unknown }[]) {
    if (f?.Key !== 'name' || !Array.isArray(f.Values)) {
      throw new AwsJsonError(
        'InvalidParameterException',
        `Filter key ${String(f?.Key)} is not supported by the local stand-in.`,
      );
    }
    prefixes.push(...f.Values.map(String));
  }
  return prefixes;
}

function arnSuffix(): string {
  return Array.from({ length: 6 }, () => ARN_SUFFIX_CHARS[randomInt(ARN_SUFFIX_CHARS.length)]).join('');
}

/** AWS reports LastAccessedDate rounded down to the day. */
function startOfDay(ms: number): number {
  return ms - (ms % DAY_MS);
}
