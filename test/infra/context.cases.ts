import { App } from 'aws-cdk-lib';
import { parseOrigins, readGatewayContext } from '../../lib/context.js';

const defaults = { gatewayVersion: '1.2.3', region: 'eu-west-1' };
const read = (context: Record<string, unknown>, overrides: Partial<typeof defaults> = {}) =>
  readGatewayContext(new App({ context }).node, { ...defaults, ...overrides });

describe('deployment context', () => {
  test('defaults: prod stage, no CORS origins, the package version, the CLI region', () => {
    expect(read({})).toEqual({
      stackName: 'AiGateway',
      region: 'eu-west-1',
      stage: 'prod',
      corsOrigins: [],
      gatewayVersion: '1.2.3',
      webAclArn: undefined,
      waf: { adminAllowList: undefined, rateLimitPer5Minutes: undefined },
      backups: {},
      promptServiceUrl: undefined,
      themesProviderUrl: undefined,
      guardrail: undefined,
      moderationUrl: undefined,
      imageDescriberModel: undefined,
      stageThrottle: { rateLimit: 500, burstLimit: 1000 },
      reservedConcurrency: {},
      accountConcurrency: 1000,
      concurrencyPartition: true,
      apiGatewayAccountRole: 'ifUnset',
      dashboardMfa: 'optional',
      streamingCompute: { mode: 'lambda' },
      // The console on unless turned off (test/infra/console-distribution.cases.ts).
      console: {},
    });
  });

  test('context values win over defaults', () => {
    expect(
      read({ stage: 'staging', gatewayVersion: '2.0.0', region: 'us-west-2', stackName: 'GatewayStaging' }),
    ).toMatchObject({ stage: 'staging', gatewayVersion: '2.0.0', region: 'us-west-2', stackName: 'GatewayStaging' });
  });

  test('waf: on by default; off by switch; the admin allow-list as CIDRs; the rate limit a whole number', () => {
    expect(read({ waf: 'off' }).waf).toBe(false);
    expect(read({ waf: false }).waf).toBe(false);
    expect(read({ adminAllowList: '203.0.113.7/32, 2001:db8::/48', wafRateLimit: '2000' }).waf).toEqual({
      adminAllowList: ['203.0.113.7/32', '2001:db8::/48'],
      rateLimitPer5Minutes: 2000,
    });
    expect(read({ adminAllowList: ['198.51.100.0/24'] }).waf).toMatchObject({ adminAllowList: ['198.51.100.0/24'] });
    for (const bad of ['203.0.113.7', '203.0.113.7/33', '300.1.1.1/32', 'example.com/32', '2001:db8::1::/64'])
      expect(() => read({ adminAllowList: bad })).toThrow(/adminAllowList/);
    expect(() => read({ waf: 'maybe' })).toThrow(/waf must be on or off/);
    expect(() => read({ wafRateLimit: 'lots' })).toThrow(/wafRateLimit/);
  });

  test('backup: on by default; off by switch; retention in days; a copy vault by ARN', () => {
    expect(read({ backup: 'off' }).backups).toBe(false);
    const vault = 'arn:aws:backup:eu-central-1:210987654321:backup-vault:gateway-copies';
    const backups = read({ backupRetentionDays: '90', backupCopyVaultArn: vault }).backups;
    expect(backups && backups.retention?.toDays()).toBe(90);
    expect(backups && backups.copyToVaultArn).toBe(vault);
    expect(() => read({ backupCopyVaultArn: 'arn:aws:s3:::bucket' })).toThrow(/backupCopyVaultArn/);
    expect(() => read({ backupRetentionDays: '0' })).toThrow(/backupRetentionDays/);
  });

  test('corsOrigins accepts the cdk.json array, a JSON string and a comma list from -c', () => {
    const expected = ['https://app.example.com', 'http://localhost:5173'];
    expect(read({ corsOrigins: expected }).corsOrigins).toEqual(expected);
    expect(read({ corsOrigins: JSON.stringify(expected) }).corsOrigins).toEqual(expected);
    expect(read({ corsOrigins: ' https://app.example.com, http://localhost:5173 ,' }).corsOrigins).toEqual(expected);
    expect(parseOrigins(['https://a.example.com', 'https://a.example.com'])).toEqual(['https://a.example.com']);
  });

  test.each([
    'https://app.example.com/',
    'https://app.example.com/path',
    'app.example.com',
    'ftp://files.example.com',
    '*',
  ])('rejects %s as an origin', (origin) => {
    expect(() => read({ corsOrigins: [origin] })).toThrow(/corsOrigins/);
  });

  test('rejects a stage name API Gateway would refuse', () => {
    expect(() => read({ stage: 'prod/v1' })).toThrow(/stage/);
  });

  test('rejects a web ACL that is not a regional WAFv2 ACL', () => {
    expect(() => read({ webAclArn: 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/x/1' })).toThrow(/webAclArn/);
    expect(read({ webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/gw/1' }).webAclArn).toBe(
      'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/gw/1',
    );
  });

  test('themesProviderUrl: an https base URL without credentials, query or fragment', () => {
    expect(read({ themesProviderUrl: 'https://themes.example.com/v1' }).themesProviderUrl).toBe(
      'https://themes.example.com/v1',
    );
    for (const url of [
      'http://themes.example.com',
      'https://u:p@themes.example.com',
      'https://t.example.com/?a=1',
      'nope',
    ]) {
      expect(() => read({ themesProviderUrl: url })).toThrow(/themesProviderUrl/);
    }
  });

  test('promptServiceUrl: an https base URL, as given', () => {
    expect(read({ promptServiceUrl: 'https://prompts.example.com' }).promptServiceUrl).toBe(
      'https://prompts.example.com',
    );
    expect(read({ promptServiceUrl: 'https://prompts.example.com:8443/api/' }).promptServiceUrl).toBe(
      'https://prompts.example.com:8443/api/',
    );
  });

  test.each([
    'http://prompts.example.com',
    'http://localhost:4010',
    'prompts.example.com',
    'ftp://prompts.example.com',
    'https://user:pw@prompts.example.com',
    'https://prompts.example.com/?tenant=a',
    'https://prompts.example.com/#x',
  ])('rejects %s as the prompt service URL', (url) => {
    expect(() => read({ promptServiceUrl: url })).toThrow(/promptServiceUrl/);
  });

  test('guardrailId and guardrailVersion: an id or an ARN, a number or DRAFT', () => {
    expect(read({ guardrailId: 'abc123def456' }).guardrail).toEqual({ id: 'abc123def456' });
    expect(read({ guardrailId: 'abc123def456', guardrailVersion: '12' }).guardrail).toEqual({
      id: 'abc123def456',
      version: '12',
    });
    expect(read({ guardrailId: 'abc123def456', guardrailVersion: 'DRAFT' }).guardrail?.version).toBe('DRAFT');
    const arn = 'arn:aws:bedrock:eu-west-1:123456789012:guardrail/abc123def456';
    expect(read({ guardrailId: arn }).guardrail).toEqual({ id: arn });
  });

  test.each([
    [{ guardrailId: 'ABC 123' }, /guardrailId/],
    [{ guardrailId: 'arn:aws:bedrock:eu-west-1:123456789012:guardrail/*' }, /guardrailId/],
    [{ guardrailId: 'arn:aws:bedrock:eu-west-1:123456789012:agent/abc' }, /guardrailId/],
    [{ guardrailId: 'abc123', guardrailVersion: '0' }, /guardrailVersion/],
    [{ guardrailId: 'abc123', guardrailVersion: 'latest' }, /guardrailVersion/],
    [{ guardrailVersion: '1' }, /guardrailVersion needs guardrailId/],
  ])('rejects guardrail context %j', (context, message) => {
    expect(() => read(context)).toThrow(message);
  });

  test('moderationUrl: an https base or /moderations URL, without credentials, never with guardrailId', () => {
    expect(read({ moderationUrl: 'https://api.openai.com/v1' }).moderationUrl).toBe('https://api.openai.com/v1');
    expect(read({ moderationUrl: 'https://mod.example.com/v1/moderations' }).moderationUrl).toBe(
      'https://mod.example.com/v1/moderations',
    );
    expect(() => read({ moderationUrl: 'http://api.openai.com/v1' })).toThrow(/https/);
    expect(() => read({ moderationUrl: 'https://user:sk@api.openai.com/v1' })).toThrow(/ModerationKey secret/);
    expect(() => read({ moderationUrl: 'https://api.openai.com/v1', guardrailId: 'abc123def456' })).toThrow(
      /set one, not both/,
    );
  });

  test('imageDescriberModel: the lowercase alias of a vision family', () => {
    expect(read({ imageDescriberModel: 'claude' }).imageDescriberModel).toBe('claude');
  });

  test.each(['  ', 'Claude', 'claude-3-opus', 'deepseek'])('rejects %j as the image describer', (model) => {
    expect(() => read({ imageDescriberModel: model })).toThrow(/imageDescriberModel/);
  });

  test('legacyChatSunset: an ISO 8601 date or zoned date-time, passed on as given', () => {
    expect(read({}).legacyChatSunset).toBeUndefined();
    expect(read({ legacyChatSunset: '2027-06-30' }).legacyChatSunset).toBe('2027-06-30');
    expect(read({ legacyChatSunset: '2027-06-30T12:00:00Z' }).legacyChatSunset).toBe('2027-06-30T12:00:00Z');
    for (const bad of ['30/06/2027', '2027-02-30', '2027-06-30T12:00'])
      expect(() => read({ legacyChatSunset: bad })).toThrow(/context legacyChatSunset .* ISO 8601/);
  });

  test('stage throttle: whole numbers from cdk.json or -c', () => {
    expect(read({ throttleRateLimit: 50, throttleBurstLimit: '80' }).stageThrottle).toEqual({
      rateLimit: 50,
      burstLimit: 80,
    });
    for (const bad of [0, -1, 1.5, 'fast', '10rps']) {
      expect(() => read({ throttleRateLimit: bad })).toThrow(/throttleRateLimit/);
    }
    expect(() => read({ throttleBurstLimit: 0 })).toThrow(/throttleBurstLimit/);
  });

  test('reservedConcurrency: an object from cdk.json, JSON or id=n pairs from -c', () => {
    const expected = { 'chat-completions': 200, health: 5 };
    expect(read({ reservedConcurrency: expected }).reservedConcurrency).toEqual(expected);
    expect(read({ reservedConcurrency: JSON.stringify(expected) }).reservedConcurrency).toEqual(expected);
    expect(read({ reservedConcurrency: ' chat-completions=200, health=5 ,' }).reservedConcurrency).toEqual(expected);
  });

  test.each([{ health: 0 }, { health: -2 }, { health: 'many' }, 'health', 'health=1=2', [5], '=3'])(
    'rejects reservedConcurrency %j',
    (value) => {
      expect(() => read({ reservedConcurrency: value })).toThrow(/reservedConcurrency/);
    },
  );

  test('accountConcurrency: a whole number from cdk.json or -c', () => {
    expect(read({ accountConcurrency: 400 }).accountConcurrency).toBe(400);
    expect(read({ accountConcurrency: '10' }).accountConcurrency).toBe(10);
    for (const bad of [0, -5, 2.5, 'lots']) {
      expect(() => read({ accountConcurrency: bad })).toThrow(/accountConcurrency/);
    }
  });

  test('concurrencyPartition: on or off, or a boolean from cdk.json', () => {
    for (const off of ['off', 'false', false])
      expect(read({ concurrencyPartition: off }).concurrencyPartition).toBe(false);
    for (const on of ['on', 'true', true]) expect(read({ concurrencyPartition: on }).concurrencyPartition).toBe(true);
    for (const bad of ['no', 'OFF', 0, 'disabled']) {
      expect(() => read({ concurrencyPartition: bad })).toThrow(/concurrencyPartition must be on or off/);
    }
  });

  test('apiGatewayAccountRole: ifUnset, set or leave', () => {
    for (const mode of ['ifUnset', 'set', 'leave']) {
      expect(read({ apiGatewayAccountRole: mode }).apiGatewayAccountRole).toBe(mode);
    }
    for (const bad of ['always', 'IFUNSET', 'none']) {
      expect(() => read({ apiGatewayAccountRole: bad })).toThrow(
        /apiGatewayAccountRole "[^"]*" must be one of ifUnset, set, leave/,
      );
    }
  });

  test('dashboardMfa: optional or required', () => {
    for (const mode of ['optional', 'required']) expect(read({ dashboardMfa: mode }).dashboardMfa).toBe(mode);
    for (const bad of ['on', 'REQUIRED', 'true']) {
      expect(() => read({ dashboardMfa: bad })).toThrow(/dashboardMfa "[^"]*" must be one of optional, required/);
    }
  });

  test('fails clearly without a region (the tables need one)', () => {
    expect(() => read({}, { region: undefined })).toThrow(/region/);
  });
  describe('streamingCompute: on-demand Lambda or Managed Instances for the streaming routes', () => {
    const managed = (more: Record<string, unknown> = {}) =>
      read({ streamingCompute: 'managed-instances', ...more }).streamingCompute;

    test('on-demand Lambda unless managed-instances is asked for; any other mode is refused by name', () => {
      expect(read({ streamingCompute: 'lambda' }).streamingCompute).toEqual({ mode: 'lambda' });
      for (const bad of ['managed', 'MANAGED-INSTANCES', 'ec2'])
        expect(() => read({ streamingCompute: bad })).toThrow(
          /context streamingCompute "[^"]*" must be lambda or managed-instances/,
        );
    });

    test('managed-instances: chat completions, a created VPC with t4g.small NAT instances, c7g.xlarge, 48 vCPUs by default', () => {
      expect(managed()).toEqual({
        mode: 'managed-instances',
        routes: ['chat-completions'],
        network: 'create',
        egress: { mode: 'nat-instances', instanceType: 't4g.small' },
        instanceType: 'c7g.xlarge',
        maxVcpus: 48,
      });
    });

    test("the created VPC's egress: NAT instances of a chosen type, or one NAT gateway", () => {
      expect(managed({ managedInstancesEgress: 'nat-gateway' })).toMatchObject({
        network: 'create',
        egress: { mode: 'nat-gateway' },
      });
      expect(
        managed({ managedInstancesEgress: 'nat-instances', managedInstancesNatInstanceType: 't4g.medium' }),
      ).toMatchObject({
        egress: { mode: 'nat-instances', instanceType: 't4g.medium' },
      });
      expect(managed({ managedInstancesNatInstanceType: ' t4g.large ' })).toMatchObject({
        egress: { mode: 'nat-instances', instanceType: 't4g.large' },
      });
      // The operator's subnets get no egress of the stack's.
      expect(
        managed({ managedInstancesSubnetIds: 'subnet-0abc1234', managedInstancesVpcId: 'vpc-0abc1234' }),
      ).not.toHaveProperty('egress');
    });

    test('routes as a list or all streaming routes; the instance type and the ceiling from context', () => {
      expect(managed({ managedInstancesRoutes: 'chat-completions,battle' })).toMatchObject({
        routes: ['chat-completions', 'battle'],
      });
      expect(managed({ managedInstancesRoutes: ['fight'] })).toMatchObject({ routes: ['fight'] });
      expect(managed({ managedInstancesRoutes: 'streaming' })).toMatchObject({ routes: 'streaming' });
      expect(managed({ managedInstancesInstanceType: 'm7g.large', managedInstancesMaxVcpus: '12' })).toMatchObject({
        instanceType: 'm7g.large',
        maxVcpus: 12,
      });
    });

    test("the operator's subnets, with security groups or the VPC to make one in", () => {
      expect(
        managed({
          managedInstancesSubnetIds: 'subnet-0abc1234,subnet-0def5678',
          managedInstancesVpcId: 'vpc-0abc1234',
        }),
      ).toMatchObject({ network: { subnetIds: ['subnet-0abc1234', 'subnet-0def5678'], vpcId: 'vpc-0abc1234' } });
      expect(
        managed({ managedInstancesSubnetIds: ['subnet-0abc1234'], managedInstancesSecurityGroupIds: 'sg-0abc1234' }),
      ).toMatchObject({ network: { subnetIds: ['subnet-0abc1234'], securityGroupIds: ['sg-0abc1234'] } });
    });

    test('each malformed or incomplete value is refused naming its key', () => {
      const refusals: [Record<string, unknown>, RegExp][] = [
        [
          { managedInstancesSubnetIds: 'subnet-0abc1234' },
          /needs managedInstancesSecurityGroupIds .* or managedInstancesVpcId/,
        ],
        [{ managedInstancesVpcId: 'vpc-0abc1234' }, /need managedInstancesSubnetIds/],
        [{ managedInstancesSubnetIds: 'sub-1', managedInstancesVpcId: 'vpc-0abc1234' }, /"sub-1" is not a subnet id/],
        [
          { managedInstancesSubnetIds: 'subnet-0abc1234', managedInstancesSecurityGroupIds: 'group' },
          /"group" is not a security group id/,
        ],
        [{ managedInstancesSubnetIds: 'subnet-0abc1234', managedInstancesVpcId: 'my-vpc' }, /"my-vpc" is not a VPC id/],
        [
          { managedInstancesInstanceType: 'c7i.xlarge' },
          /managedInstancesInstanceType "c7i.xlarge" must be one of c7g.large/,
        ],
        [{ managedInstancesMaxVcpus: 8 }, /managedInstancesMaxVcpus 8 is below 12/],
        [{ managedInstancesMaxVcpus: 'lots' }, /managedInstancesMaxVcpus must be a whole number/],
        [{ managedInstancesRoutes: ',' }, /managedInstancesRoutes is an empty list/],
        [
          { managedInstancesEgress: 'nat' },
          /context managedInstancesEgress "nat" must be nat-instances or nat-gateway/,
        ],
        [
          { managedInstancesNatInstanceType: 't3.small' },
          /context managedInstancesNatInstanceType "t3.small" must be one of t4g.micro, t4g.small/,
        ],
        [
          { managedInstancesEgress: 'nat-gateway', managedInstancesNatInstanceType: 't4g.small' },
          /managedInstancesNatInstanceType only applies with managedInstancesEgress=nat-instances/,
        ],
        [
          {
            managedInstancesSubnetIds: 'subnet-0abc1234',
            managedInstancesVpcId: 'vpc-0abc1234',
            managedInstancesEgress: 'nat-gateway',
          },
          /context managedInstancesEgress is for the VPC the stack makes: with managedInstancesSubnetIds/,
        ],
        [
          {
            managedInstancesSubnetIds: 'subnet-0abc1234',
            managedInstancesVpcId: 'vpc-0abc1234',
            managedInstancesNatInstanceType: 't4g.small',
          },
          /context managedInstancesNatInstanceType is for the VPC the stack makes/,
        ],
      ];
      for (const [context, message] of refusals) expect(() => managed(context)).toThrow(message);
    });

    test('a managedInstances key without the mode is refused rather than ignored', () => {
      expect(() => read({ managedInstancesSubnetIds: 'subnet-0abc1234' })).toThrow(
        /context managedInstancesSubnetIds only applies with -c streamingCompute=managed-instances/,
      );
      expect(() => read({ streamingCompute: 'lambda', managedInstancesRoutes: 'battle' })).toThrow(
        /managedInstancesRoutes only applies/,
      );
      expect(() =>
        read({ managedInstancesEgress: 'nat-gateway', managedInstancesNatInstanceType: 't4g.small' }),
      ).toThrow(
        /context managedInstancesEgress, managedInstancesNatInstanceType only applies with -c streamingCompute=managed-instances/,
      );
    });
  });
});
