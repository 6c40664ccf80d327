import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  StandardThreatProtectionMode,
  UserPool,
  UserPoolClient,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';

export interface DashboardUserPoolProps {
  /**
   * Threat protection for password sign-ins. AWS advises running audit-only for a couple of
   * weeks before enforcing; sign-ins reach Cognito from the login function, not the browser,
   * so review the risk metrics before switching to FULL_FUNCTION.
   * @default StandardThreatProtectionMode.AUDIT_ONLY
   */
  readonly threatProtection?: StandardThreatProtectionMode;
}

/** Dashboard accounts: created by the admin API, signed in by the gateway's own login route. */
export class DashboardUserPool extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string, props: DashboardUserPoolProps = {}) {
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
      featurePlan: FeaturePlan.PLUS,
      standardThreatProtectionMode: props.threatProtection ?? StandardThreatProtectionMode.AUDIT_ONLY,
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
      id: 'AwsSolutions-COG2',
      reason:
        'Dashboard sign-in goes through the gateway login route (USER_PASSWORD_AUTH), which exchanges ' +
        'the password for an opaque HttpOnly session cookie and does not implement MFA challenges; ' +
        'requiring MFA would make every account unable to sign in.',
    });
  }
}
