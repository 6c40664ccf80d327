import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccountRecovery, FeaturePlan, Mfa, UserPool, UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { MFA_SETUP_VALIDITY_MS } from '../../lambdas/identity/login-limits.js';

/** Whether every dashboard user must have an authenticator, or each user chooses. */
export type DashboardMfa = 'optional' | 'required';
export const DASHBOARD_MFA_MODES: readonly DashboardMfa[] = ['optional', 'required'];

export interface DashboardUserPoolProps {
  /** Every user must set up an authenticator (TOTP) to sign in. @default false: each user's choice */
  readonly mfaRequired?: boolean;
}

/**
 * Dashboard accounts: created by the admin API, signed in by the gateway's own login route.
 *
 * Essentials plan, no threat protection: every sign-in reaches Cognito from the login
 * function, so the risk engine would see only Lambda's addresses and no device data, and
 * the Plus plan's per-user price would buy a score of nothing. The gateway throttles sign-ins
 * per email and per client address itself (lambdas/identity/login-throttle.ts).
 *
 * The app client allows the admin password flow and refresh tokens only: sign-in is an
 * IAM-signed AdminInitiateAuth that only the functions granted `userPool:login` may make, so
 * the client's public id lets no one start a sign-in around the gateway's throttle.
 *
 * MFA is TOTP (an authenticator app) only, never SMS: optional per user, or on for every user
 * with `mfaRequired` (a user without one is then taken through its set-up at sign-in).
 */
export class DashboardUserPool extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly mfaRequired: boolean;

  constructor(scope: Construct, id: string, props: DashboardUserPoolProps = {}) {
    super(scope, id);
    this.mfaRequired = props.mfaRequired ?? false;
    this.userPool = new UserPool(this, 'Pool', {
      signInAliases: { email: true },
      signInCaseSensitive: false,
      selfSignUpEnabled: false,
      autoVerify: { email: true },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: this.mfaRequired ? Mfa.REQUIRED : Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      featurePlan: FeaturePlan.ESSENTIALS,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.client = this.userPool.addClient('GatewayClient', {
      authFlows: { adminUserPassword: true },
      generateSecret: false,
      disableOAuth: true,
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      // A set-up begun at sign-in keeps the MFA_SETUP challenge's session until its code comes.
      authSessionValidity: Duration.millis(MFA_SETUP_VALIDITY_MS),
    });

    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG8',
      reason:
        'Essentials on purpose: sign-ins reach Cognito from the login function, so Plus threat ' +
        "protection would score Lambda's addresses, not the users'; the gateway throttles sign-ins " +
        'per email and per client address itself (docs/deployment.md).',
    });
    if (!this.mfaRequired) {
      Validations.of(this.userPool).acknowledge({
        id: 'AwsSolutions-COG2',
        reason:
          'TOTP MFA is optional per dashboard user by default (each user turns it on at POST /api/v1/auth/mfa); ' +
          'the operator requires it for every user with the dashboardMfa=required context value (docs/deployment.md).',
      });
    }
  }
}
