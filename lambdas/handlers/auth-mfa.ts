import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { MFA_SETUP_BODY } from '../identity/account-schemas.js';
import { IdentityError } from '../identity/identity-errors.js';
import { beginMfa, confirmMfa } from '../identity/mfa-enrolment.js';
import { deploymentSignIn } from '../identity/sign-in.js';
import { viewerAddress } from '../identity/viewer-address.js';

interface MfaSetupBody {
  /** null is the same as absent, for both. */
  currentPassword?: string | null;
  totpCode?: string | null;
}

/**
 * POST /api/v1/auth/mfa: with `currentPassword` a new authenticator secret (the secret and its
 * `otpauth://` URI, for the app); with `totpCode` alone, a code of it, which switches MFA on.
 */
export const handler = defineHandler('auth-mfa', {
  body: compile<MfaSetupBody>(MFA_SETUP_BODY),
  handle: async ({ body: { currentPassword, totpCode }, principal, req, config }) => {
    const deps = deploymentSignIn(config.userPool.totpIssuer);
    if (currentPassword != null) {
      const state = await beginMfa(
        principal,
        currentPassword,
        totpCode ?? undefined,
        await viewerAddress(req, config.edgeSecretId),
        deps,
      );
      return envelope(state, 200, { 'Cache-Control': 'no-store' });
    }
    if (totpCode == null) {
      throw new IdentityError('invalid_request', 'Send currentPassword to begin a set-up, or totpCode to confirm one', {
        field: 'totpCode',
      });
    }
    return envelope(await confirmMfa(principal, totpCode, await viewerAddress(req, config.edgeSecretId), deps));
  },
});
