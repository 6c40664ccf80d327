import { randomUUID } from 'node:crypto';
import { forgetStoredKeys } from '../chat/provider-credentials.js';
import { defineHandler } from '../http/define-handler.js';
import { conflict } from '../http/errors.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { trailingCharacters } from '../schema/text-length.js';
import { CREATE_PROVIDER_KEY_BODY, type CreateProviderKeyBody } from '../identity/provider-key-schemas.js';
import { describeProviderKey } from '../identity/provider-key-view.js';
import { createProviderKeySecret } from '../store/provider-key-secrets.js';
import {
  claimSlug,
  putProviderKey,
  releaseSlug,
  SlugTakenError,
  type ProviderKeyRecord,
} from '../store/provider-keys.js';

const body = compile<CreateProviderKeyBody>(CREATE_PROVIDER_KEY_BODY);

/**
 * Stores a caller's own provider key: slug claimed first (unique per account), then the
 * secret, then the record; a failure releases the slug. This function may create provider-key
 * secrets but not delete them (least privilege: `providerKeys:create`), so a record write that
 * fails after the secret exists leaves that secret unreferenced and never read;
 * docs/deployment.md says how to find such secrets.
 */
export const handler = defineHandler('provider-keys-create', {
  body,
  handle: async ({ body: request, principal }) => {
    const accountId = principal.accountId;
    const id = `pkey_${randomUUID().replaceAll('-', '')}`;
    await claimSlug(accountId, request.slug, id).catch((error: unknown) => {
      if (error instanceof SlugTakenError)
        throw conflict('slug', 'slug: already used by another of your provider keys');
      throw error;
    });
    try {
      const secretId = await createProviderKeySecret(accountId, id, request.apiKey);
      const record: ProviderKeyRecord = {
        id,
        accountId,
        provider: request.provider,
        slug: request.slug,
        ...(request.displayName ? { displayName: request.displayName } : {}),
        last4: trailingCharacters(request.apiKey, 4),
        secretId,
        createdAt: new Date().toISOString(),
      };
      await putProviderKey(record);
      forgetStoredKeys(accountId);
      return envelope(describeProviderKey(record), 201);
    } catch (error) {
      await releaseSlug(accountId, request.slug).catch(() => undefined);
      throw error;
    }
  },
});
