import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccountRecovery, FeaturePlan, Mfa, UserPool, UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';

/**
 * Dashboard accounts: created by the admin API, signed in by the gateway's own login route.
 *
 * Essentials plan, no threat protection: every sign-in reaches Cognito from the login
 * function, so the risk engine would see only Lambda's addresses and no device data, and
 * the Plus plan's per-user price would buy a score of nothing. The gateway throttles sign-ins
 * per email and per client address itself (lambdas/identity/login-throttle.ts).
 */
export class DashboardUserPool extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string) {
    super(scope, id);
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
      mfa: Mfa.OFF,
      featurePlan: FeaturePlan.ESSENTIALS,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.client = this.userPool.addClient('GatewayClient', {
      authFlows: { userPassword: true },
      generateSecret: false,
      disableOAuth: true,
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
    });

    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG8',
      reason:
        'Essentials on purpose: sign-ins reach Cognito from the login function, so Plus threat ' +
        "protection would score Lambda's addresses, not the users'; the gateway throttles sign-ins " +
        'per email and per client address itself (docs/deployment.md).',
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason:
        'Dashboard sign-in goes through the gateway login route (USER_PASSWORD_AUTH), which exchanges ' +
        'the password for an opaque HttpOnly session cookie and does not implement MFA challenges; ' +
        'requiring MFA would make every account unable to sign in.',
    });
  }
}
