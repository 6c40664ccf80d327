import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { App } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CONSOLE_SECURITY_HEADERS, CONSOLE_TRANSPORT_SECURITY } from '../../lib/console-security-headers.js';
import { CONSOLE_REWRITE_SOURCE, VIEWER_ADDRESS_SOURCE } from '../../lib/constructs/console-distribution.js';
import { parseConsole, readGatewayContext } from '../../lib/context.js';
import { AWS_PRICES } from '../../lib/cost/aws-prices.js';
import { DEFAULT_CONSOLE } from '../../lib/cost/console-costs.js';
import { idleMonthlyCost, perMillionRequests, type Template } from '../../lib/cost/cost-model.js';
import { ENV } from '../../lambdas/config/environment.js';
import { routes } from '../../lib/routes.js';
import { DEFAULT_WAF_RATE_LIMIT } from '../../lib/constructs/gateway-web-acl.js';
import { EDGE_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../lambdas/identity/edge-headers.js';
import { build, functionLogicalId, logicalIdOf, REGION, roleLogicalId, roleStatements } from './support.js';

/** How CDK writes a secret's whole value as a CloudFormation dynamic reference. */
const dynamicReferenceTo = (secretId: string) => ({
  'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']],
});

/** The console on CloudFront: bucket, behaviors, headers, the rewrite, the context switch. */
const FIXTURE_BUILD = new URL('./fixtures/console/', import.meta.url).pathname;
const CERT = 'arn:aws:acm:us-east-1:123456789012:certificate/0b6e1a2c-3d4e-4f5a-8b9c-0d1e2f3a4b5c';
type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

const withConsole = build({ console: { assetsPath: FIXTURE_BUILD }, stageName: 'live' });
const resources = withConsole.template.toJSON().Resources as Resources;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const distribution = () => {
  const [[, found]] = ofType('AWS::CloudFront::Distribution') as [[string, any]];
  return found.Properties.DistributionConfig;
};

interface ViewerRequest {
  uri: string;
  headers: Record<string, { value: string }>;
}

/** A function's code run as CloudFront runs it: a `handler(event)` given a viewer-request event. */
function runFunction(source: string, uri: string, ip: string, headers: ViewerRequest['headers'] = {}): ViewerRequest {
  const handler = runInNewContext(`${readFileSync(source, 'utf8')}; handler`) as (event: unknown) => ViewerRequest;
  const event = {
    version: '1.0',
    context: { eventType: 'viewer-request' },
    viewer: { ip },
    request: {
      method: 'GET',
      uri,
      querystring: {},
      headers: { host: { value: 'd111.cloudfront.net' }, ...headers },
      cookies: {},
    },
  };
  return handler(event);
}
const rewrite = (uri: string) => runFunction(CONSOLE_REWRITE_SOURCE, uri, '203.0.113.7').uri;

const viewerAddressFunctionId = () => {
  const [[id]] = ofType('AWS::CloudFront::Function').filter(([, f]) =>
    f.Properties.FunctionCode.includes(VIEWER_ADDRESS_HEADER),
  ) as [[string, unknown]];
  return id;
};

describe('the console bucket', () => {
  test('is private: public access blocked, TLS only, encrypted, logged, read by CloudFront through OAC alone', () => {
    const bucketId = logicalIdOf(withConsole.stack.console!.bucket);
    const bucket = resources[bucketId]!.Properties;
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault).toEqual({
      SSEAlgorithm: 'AES256',
    });
    expect(bucket.LoggingConfiguration.DestinationBucketName).toEqual({
      Ref: logicalIdOf(withConsole.stack.console!.logs),
    });
    const [[, policy]] = ofType('AWS::S3::BucketPolicy').filter(([, p]) => p.Properties.Bucket.Ref === bucketId) as [
      [string, any],
    ];
    const statements = policy.Properties.PolicyDocument.Statement as any[];
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const allows = statements.filter((s) => s.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0].Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(allows[0].Action).toBe('s3:GetObject');
    expect(JSON.stringify(allows[0].Condition)).toContain('AWS:SourceArn');
    // Origin access control, signing every request; no legacy origin access identity.
    withConsole.template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      }),
    });
    expect(ofType('AWS::CloudFront::CloudFrontOriginAccessIdentity')).toEqual([]);
  });

  test('index.html is deployed to revalidate and the hashed assets as immutable, then index.html invalidated', () => {
    const deployments = ofType('Custom::CDKBucketDeployment').map(([, d]) => d.Properties);
    expect(deployments).toHaveLength(2);
    const pages = deployments.find((d) => d.DistributionPaths)!;
    const assets = deployments.find((d) => !d.DistributionPaths)!;
    expect(pages.SystemMetadata).toEqual({ 'cache-control': 'no-cache' });
    expect(assets.SystemMetadata).toEqual({ 'cache-control': 'public, max-age=31536000, immutable' });
    expect(pages.DistributionPaths).toEqual(['/index.html']);
    // What each copies: the staged asset's files, under its key prefix.
    const { directory } = withConsole.app.synth();
    const staged = (deployment: any) =>
      readdirSync(join(directory, `asset.${String(deployment.SourceObjectKeys[0]).replace(/\.zip$/, '')}`), {
        recursive: true,
      })
        .map(String)
        .map((file) => `${deployment.DestinationBucketKeyPrefix ?? ''}${file}`)
        .sort();
    expect(staged(pages)).toEqual(['index.html']);
    expect(staged(assets)).toEqual(['assets/fixture-0a1b2c3d.js']);
    // Neither prunes: each would delete the other's files, and an open page needs the old assets.
    expect([pages.Prune, assets.Prune]).toEqual([false, false]);
  });
});

describe('the distribution', () => {
  test('/* from the bucket with the rewrite and the headers; /api/* to the stage, uncached, every method', () => {
    const config = distribution();
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.HttpVersion).toBe('http2and3');
    expect(config.IPV6Enabled).toBe(true);
    expect(config.PriceClass).toBe('PriceClass_100');
    expect(config.Logging.Bucket).toBeDefined();
    const byId = new Map((config.Origins as any[]).map((origin) => [origin.Id, origin]));
    const s3 = byId.get(config.DefaultCacheBehavior.TargetOriginId);
    expect(s3.S3OriginConfig).toBeDefined();
    expect(s3.OriginAccessControlId).toBeDefined();
    expect(config.DefaultCacheBehavior).toMatchObject({
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
      FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: expect.anything() }],
      ResponseHeadersPolicyId: expect.anything(),
    });
    expect(config.CacheBehaviors).toHaveLength(1);
    const api = config.CacheBehaviors[0];
    expect(api).toMatchObject({
      PathPattern: '/api/*',
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      // The managed CachingDisabled and AllViewerExceptHostHeader policies.
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
      Compress: false,
    });
    // The API's answers keep their own headers: no console policy and no rewrite there, only
    // the viewer's address set on the way in.
    expect(api.ResponseHeadersPolicyId).toBeUndefined();
    expect(api.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [viewerAddressFunctionId(), 'FunctionARN'] } },
    ]);
    const origin = byId.get(api.TargetOriginId);
    expect(origin.OriginPath).toBe('/live');
    expect(JSON.stringify(origin.DomainName)).toContain(logicalIdOf(withConsole.stack.api.api));
    expect(JSON.stringify(origin.DomainName)).toContain('.execute-api.');
    expect(origin.CustomOriginConfig).toMatchObject({
      OriginProtocolPolicy: 'https-only',
      OriginSSLProtocols: ['TLSv1.2'],
      OriginReadTimeout: 60,
    });
  });

  test('the response headers policy is exactly lib/console-security-headers.ts, with HSTS', () => {
    const [[, policy]] = ofType('AWS::CloudFront::ResponseHeadersPolicy') as [[string, any]];
    const config = policy.Properties.ResponseHeadersPolicyConfig;
    // Named per region: policy names are the account's, and a stack of the same name may run in another region.
    expect(config.Name).toMatch(new RegExp(`^${REGION}-`));
    const security = config.SecurityHeadersConfig;
    const sent: Record<string, string> = {
      'Content-Security-Policy': security.ContentSecurityPolicy.ContentSecurityPolicy,
      ...(security.ContentTypeOptions ? { 'X-Content-Type-Options': 'nosniff' } : {}),
      'X-Frame-Options': security.FrameOptions.FrameOption,
      'Referrer-Policy': security.ReferrerPolicy.ReferrerPolicy,
      ...Object.fromEntries(
        (config.CustomHeadersConfig.Items as any[]).map((item) => [item.Header, item.Value as string]),
      ),
    };
    expect(sent).toEqual(CONSOLE_SECURITY_HEADERS);
    expect(security.StrictTransportSecurity).toEqual({
      AccessControlMaxAgeSec: CONSOLE_TRANSPORT_SECURITY.maxAgeSeconds,
      IncludeSubdomains: false,
      Preload: false,
      Override: true,
    });
    for (const header of [...(config.CustomHeadersConfig.Items as any[]), security.ContentSecurityPolicy])
      expect(header.Override).toBe(true);
  });

  test('the functions accept cookie writes from the distribution’s origin as well as corsOrigins', () => {
    const built = build({ console: { assetsPath: FIXTURE_BUILD }, corsOrigins: ['https://app.example.com'] });
    const fn = built.template.toJSON().Resources[functionLogicalId(built.stack, 'keys-create')];
    const origins = fn.Properties.Environment.Variables[ENV.allowedOrigins];
    const [distributionId] = ofType('AWS::CloudFront::Distribution')[0]!;
    expect(JSON.stringify(origins)).toContain('https://app.example.com,https://');
    expect(JSON.stringify(origins)).toContain(`"${distributionId}","DomainName"`);
    built.template.hasOutput('ConsoleUrl', Match.anyValue());
  });

  test('is cdk-nag clean, and the stack stays within 450 resources with CORS origins too', () => {
    const built = build({ console: { assetsPath: FIXTURE_BUILD }, corsOrigins: ['https://app.example.com'] });
    expect(() => built.app.synth()).not.toThrow();
    expect(new AwsSolutionsChecks().validateScope(built.stack).violations).toEqual([]);
    expect(Object.keys(built.template.toJSON().Resources).length).toBeLessThanOrEqual(450);
  });

  // The variants the other cases hold to 450 (api.cases.ts: CORS origins; managed-instances.cases.ts:
  // the default routes, and every streaming route), each with the console, as a deploy has it by default.
  const managedInstances = (routes: readonly string[] | 'streaming') =>
    ({
      mode: 'managed-instances',
      routes,
      network: 'create',
      egress: { mode: 'nat-instances', instanceType: 't4g.small' },
      instanceType: 'c7g.xlarge',
      maxVcpus: 48,
    }) as const;
  test.each([
    ['CORS origins', { corsOrigins: ['https://app.example.com', 'https://admin.example.com'] }],
    ['Managed Instances for chat completions', { streamingCompute: managedInstances(['chat-completions']) }],
    ['Managed Instances for every streaming route', { streamingCompute: managedInstances('streaming') }],
  ])('with %s and the console, the stack stays within 450 resources', (_variant, props) => {
    const built = build({ console: { assetsPath: FIXTURE_BUILD }, ...props });
    const count = Object.keys(built.template.toJSON().Resources).length;
    expect({ resources: count, withinBudget: count <= 450 }).toEqual({ resources: count, withinBudget: true });
  });

  // The largest deployment the context allows: every streaming route on Managed Instances with
  // its own VPC and NAT instances, CORS origins, and the console. Over 450, but CloudFormation's
  // own limit of 500 must hold (docs/deployment.md gives the counts).
  test('with every streaming route on Managed Instances, CORS origins and the console, within CloudFormation’s 500', () => {
    const built = build({
      console: { assetsPath: FIXTURE_BUILD },
      corsOrigins: ['https://app.example.com'],
      streamingCompute: managedInstances('streaming'),
    });
    const count = Object.keys(built.template.toJSON().Resources).length;
    expect({ resources: count, withinLimit: count <= 500 }).toEqual({ resources: count, withinLimit: true });
  });

  test('with an alias: its us-east-1 certificate at TLS 1.2, the A and AAAA records, both origins trusted', () => {
    const built = build({
      console: {
        assetsPath: FIXTURE_BUILD,
        domain: {
          domainName: 'console.example.com',
          certificateArn: CERT,
          hostedZone: { id: 'Z0123456789ABC', name: 'example.com' },
        },
      },
    });
    built.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['console.example.com'],
        ViewerCertificate: {
          AcmCertificateArn: CERT,
          MinimumProtocolVersion: 'TLSv1.2_2021',
          SslSupportMethod: 'sni-only',
        },
      }),
    });
    for (const type of ['A', 'AAAA'])
      built.template.hasResourceProperties('AWS::Route53::RecordSet', { Name: 'console.example.com.', Type: type });
    expect(built.stack.console!.url).toBe('https://console.example.com');
    expect(built.stack.console!.origins[0]).toBe('https://console.example.com');
    expect(new AwsSolutionsChecks().validateScope(built.stack).violations).toEqual([]);
  });

  test('without the console prop there is no distribution, bucket deployment or console origin', () => {
    const { template } = build();
    template.resourceCountIs('AWS::CloudFront::Distribution', 0);
    template.resourceCountIs('Custom::CDKBucketDeployment', 0);
    expect(template.toJSON().Outputs.ConsoleUrl).toBeUndefined();
  });
});

describe('the rewrite function', () => {
  test.each([
    ['/', '/index.html'],
    ['/keys', '/index.html'],
    ['/usage/2026-11', '/index.html'],
    ['/arena/', '/index.html'],
    ['/index.html', '/index.html'],
    ['/assets/console-0a1b2c3d.js', '/assets/console-0a1b2c3d.js'],
    ['/assets/missing.css', '/assets/missing.css'],
    ['/favicon.ico', '/favicon.ico'],
  ])('%s → %s', (uri, expected) => {
    expect(rewrite(uri)).toBe(expected);
  });
});

describe("the viewer's address", () => {
  test('the /api/* function sets it from the connection, replacing whatever the viewer sent', () => {
    const [[, fn]] = ofType('AWS::CloudFront::Function').filter(([id]) => id === viewerAddressFunctionId()) as [
      [string, any],
    ];
    expect(fn.Properties.FunctionCode).toBe(readFileSync(VIEWER_ADDRESS_SOURCE, 'utf8'));
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    for (const ip of ['203.0.113.7', '2001:db8::7']) {
      const plain = runFunction(VIEWER_ADDRESS_SOURCE, '/api/v1/auth/login', ip);
      expect(plain.headers[VIEWER_ADDRESS_HEADER]).toEqual({ value: ip });
      const forged = runFunction(VIEWER_ADDRESS_SOURCE, '/api/v1/auth/login', ip, {
        [VIEWER_ADDRESS_HEADER]: { value: '198.51.100.1' },
      });
      expect(forged.headers[VIEWER_ADDRESS_HEADER]).toEqual({ value: ip });
      expect(forged.uri).toBe('/api/v1/auth/login');
    }
  });

  test('the API origin sends the edge secret as a dynamic reference: the value is never in the template', () => {
    const secretId = logicalIdOf(withConsole.stack.secrets.edgeSecret!);
    const config = distribution();
    const apiOriginId = config.CacheBehaviors[0].TargetOriginId;
    const origin = (config.Origins as any[]).find((o) => o.Id === apiOriginId);
    expect(origin.OriginCustomHeaders).toEqual([
      { HeaderName: EDGE_SECRET_HEADER, HeaderValue: dynamicReferenceTo(secretId) },
    ]);
    // No other origin carries it: the bucket's requests are signed by origin access control.
    expect((config.Origins as any[]).filter((o) => o.OriginCustomHeaders)).toHaveLength(1);
    const secret = resources[secretId]!.Properties;
    expect(secret.GenerateSecretString).toMatchObject({ PasswordLength: 48, ExcludePunctuation: true });
    expect(secret.SecretString).toBeUndefined();
  });

  test('only the sign-in routes read the edge secret, by their environment and their role', () => {
    const secretId = logicalIdOf(withConsole.stack.secrets.edgeSecret!);
    const readers = routes.filter((route) => route.grants.includes('edgeSecret:read')).map((route) => route.id);
    expect(readers.sort()).toEqual(['auth-login', 'auth-mfa', 'auth-mfa-delete', 'auth-password']);
    for (const route of routes) {
      const fn = resources[functionLogicalId(withConsole.stack, route.id)]!.Properties;
      const statements = roleStatements(withConsole.template, roleLogicalId(withConsole.stack, route.id));
      const reads = statements.filter((st) => JSON.stringify(st.Resource).includes(`"${secretId}"`));
      expect([route.id, fn.Environment.Variables[ENV.edgeSecretId], reads.flatMap((st) => st.Action)]).toEqual([
        route.id,
        readers.includes(route.id) ? { Ref: secretId } : undefined,
        readers.includes(route.id) ? ['secretsmanager:GetSecretValue'] : [],
      ]);
    }
  });

  test('the web ACL counts requests with the edge secret by the viewer address, others by their source', () => {
    const built = build({ console: { assetsPath: FIXTURE_BUILD }, waf: { adminAllowList: ['192.0.2.0/24'] } });
    const secretId = logicalIdOf(built.stack.secrets.edgeSecret!);
    const [acl] = Object.values(built.template.findResources('AWS::WAFv2::WebACL')) as any[];
    const rules = new Map((acl.Properties.Rules as any[]).map((rule) => [rule.Name, rule.Statement]));
    const edge = {
      ByteMatchStatement: {
        FieldToMatch: { SingleHeader: { Name: EDGE_SECRET_HEADER } },
        PositionalConstraint: 'EXACTLY',
        SearchString: dynamicReferenceTo(secretId),
        TextTransformations: [{ Priority: 0, Type: 'NONE' }],
      },
    };
    expect(rules.get('RatePerClientAddress').RateBasedStatement).toMatchObject({
      AggregateKeyType: 'IP',
      ScopeDownStatement: { NotStatement: { Statement: edge } },
    });
    expect(rules.get('RatePerViewerAddress').RateBasedStatement).toMatchObject({
      AggregateKeyType: 'FORWARDED_IP',
      ForwardedIPConfig: { HeaderName: VIEWER_ADDRESS_HEADER, FallbackBehavior: 'MATCH' },
      ScopeDownStatement: edge,
      Limit: DEFAULT_WAF_RATE_LIMIT,
    });
    // Admin paths: a direct call by its source address, a call through the edge by its viewer's.
    const [, allowed] = rules.get('AdminRoutesFromAllowedAddresses').AndStatement.Statements;
    const [direct, viaEdge] = allowed.NotStatement.Statement.OrStatement.Statements;
    expect(direct.AndStatement.Statements).toEqual([
      { NotStatement: { Statement: edge } },
      { IPSetReferenceStatement: { Arn: expect.anything() } },
    ]);
    expect(viaEdge.AndStatement.Statements).toEqual([
      edge,
      {
        IPSetReferenceStatement: {
          Arn: expect.anything(),
          IPSetForwardedIPConfig: {
            HeaderName: VIEWER_ADDRESS_HEADER,
            FallbackBehavior: 'NO_MATCH',
            Position: 'FIRST',
          },
        },
      },
    ]);
    // The secret is redacted from the web ACL's logs.
    built.template.hasResourceProperties('AWS::WAFv2::LoggingConfiguration', {
      RedactedFields: Match.arrayWith([{ SingleHeader: { Name: EDGE_SECRET_HEADER } }]),
    });
    expect(new AwsSolutionsChecks().validateScope(built.stack).violations).toEqual([]);
  });

  test('without the console: no edge secret, and one rate rule by source address', () => {
    const { template, stack } = build();
    expect(stack.secrets.edgeSecret).toBeUndefined();
    const [acl] = Object.values(template.findResources('AWS::WAFv2::WebACL')) as any[];
    const names = (acl.Properties.Rules as any[]).map((rule) => rule.Name);
    expect(names).toContain('RatePerClientAddress');
    expect(names).not.toContain('RatePerViewerAddress');
    expect(JSON.stringify(acl.Properties.Rules)).not.toContain(EDGE_SECRET_HEADER);
  });
});

describe('context', () => {
  const read = (context: Record<string, unknown>) =>
    readGatewayContext(new App({ context }).node, { gatewayVersion: '1', region: REGION }).console;

  test('on by default; off (the API alone); on, with a price class and an alias in the API’s zone', () => {
    expect(read({})).toEqual({});
    expect(read({ consolePriceClass: '200' })).toEqual({ priceClass: '200' });
    expect(read({ console: 'off' })).toBe(false);
    expect(read({ console: 'on' })).toEqual({});
    expect(read({ console: 'on', consolePriceClass: 'all' })).toEqual({ priceClass: 'all' });
    expect(
      read({
        console: 'on',
        consoleDomainName: 'console.example.com',
        consoleCertificateArn: CERT,
        domainName: 'api.example.com',
        certificateArn: CERT.replace('us-east-1', REGION),
        hostedZoneId: 'Z0123456789ABC',
        hostedZoneName: 'example.com',
      }),
    ).toEqual({
      domain: {
        domainName: 'console.example.com',
        certificateArn: CERT,
        hostedZone: { id: 'Z0123456789ABC', name: 'example.com' },
      },
    });
  });

  test.each([
    [{ console: 'maybe' }, /console must be on or off/],
    [{ console: 'off', priceClass: '100' }, /consolePriceClass only applies with the console on/],
    [{ console: 'on', priceClass: '300' }, /must be one of 100, 200, all/],
    [{ console: 'on', domainName: 'console.example.com' }, /go together/],
    [{ console: 'on', domainName: 'Console.example.com', certificateArn: CERT }, /not a lower-case host name/],
    [
      { console: 'on', domainName: 'console.example.com', certificateArn: CERT.replace('us-east-1', REGION) },
      /us-east-1 only/,
    ],
  ])('refuses %p', (raw, message) => {
    expect(() => parseConsole(raw)).toThrow(message);
  });
});

describe('cost', () => {
  const template = withConsole.template.toJSON() as Template;

  test('the distribution and the bucket are counted idle and per request', () => {
    const idle = idleMonthlyCost(template).map((line) => line.item);
    expect(idle).toContain('Console bucket storage');
    const perRequest = perMillionRequests(template).map((line) => line.item);
    expect(perRequest).toEqual(
      expect.arrayContaining([
        'CloudFront requests',
        'CloudFront data out',
        'CloudFront Functions',
        'S3 console reads',
      ]),
    );
    // Every request priced as if through the distribution (an upper bound): a million HTTPS requests and the files.
    // The viewer-address function runs on each API request, the rewrite on each console file.
    const functions = perMillionRequests(template).find((line) => line.item === 'CloudFront Functions')!;
    expect(functions.usd).toBeCloseTo(
      ((1e6 + DEFAULT_CONSOLE.pageLoadsPerMillion * DEFAULT_CONSOLE.filesPerLoad) / 1e6) *
        AWS_PRICES.cloudFront.perMillionFunctionInvocations,
    );
    const requests = perMillionRequests(template).find((line) => line.item === 'CloudFront requests')!;
    expect(requests.usd).toBeCloseTo(
      ((1e6 + DEFAULT_CONSOLE.pageLoadsPerMillion * DEFAULT_CONSOLE.filesPerLoad) / 1e6) *
        AWS_PRICES.cloudFront.perMillionHttpsRequests,
      9,
    );
    const without = perMillionRequests(build().template.toJSON() as Template).map((line) => line.item);
    expect(without).not.toContain('CloudFront requests');
  });
});
