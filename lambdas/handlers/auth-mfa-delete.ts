import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { MFA_DISABLE_BODY } from '../identity/account-schemas.js';
import { disableMfa } from '../identity/mfa-enrolment.js';
import { deploymentSignIn } from '../identity/sign-in.js';
import { viewerAddress } from '../identity/viewer-address.js';

interface MfaDisableBody {
  currentPassword: string;
  totpCode: string;
}

/** DELETE /api/v1/auth/mfa: the password and the authenticator's code turn MFA off. */
export const handler = defineHandler('auth-mfa-delete', {
  body: compile<MfaDisableBody>(MFA_DISABLE_BODY),
  handle: async ({ body: { currentPassword, totpCode }, principal, req, config }) => {
    const deps = deploymentSignIn(config.userPool.totpIssuer);
    const { mfaRequired } = config.userPool;
    return envelope(
      await disableMfa(
        principal,
        currentPassword,
        totpCode,
        await viewerAddress(req, config.edgeSecretId),
        deps,
        mfaRequired,
      ),
    );
  },
});
