import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CfnElement,
  CfnOutput,
  DefaultStackSynthesizer,
  Duration,
  Names,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type ResponseSecurityHeadersBehavior,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import {
  CONSOLE_IMMUTABLE_CACHE,
  CONSOLE_REVALIDATE_CACHE,
  CONSOLE_SECURITY_HEADERS,
  CONSOLE_TRANSPORT_SECURITY,
} from '../console-security-headers.js';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { EDGE_SECRET_HEADER } from '../../lambdas/identity/edge-headers.js';
import type { HostedZoneRef } from './custom-domain.js';

/** The price classes context `consolePriceClass` names, by the edge locations CloudFront serves from. */
export const CONSOLE_PRICE_CLASSES = {
  /** North America and Europe: the cheapest, and the default. */
  '100': PriceClass.PRICE_CLASS_100,
  /** Adds Asia, the Middle East and Africa. */
  '200': PriceClass.PRICE_CLASS_200,
  all: PriceClass.PRICE_CLASS_ALL,
} as const;
export type ConsolePriceClass = keyof typeof CONSOLE_PRICE_CLASSES;
export const DEFAULT_CONSOLE_PRICE_CLASS: ConsolePriceClass = '100';

/** The console under the operator's own host name, on the distribution. */
export interface ConsoleDomain {
  /** e.g. `console.example.com`. */
  readonly domainName: string;
  /** An ACM certificate for it in us-east-1, the only region CloudFront takes certificates from. */
  readonly certificateArn: string;
  /** Where to write the name's A and AAAA alias records. @default - none: point it at `ConsoleDistributionDomain` */
  readonly hostedZone?: HostedZoneRef;
}

/** What a deployment chooses about the console (context `console`, `consolePriceClass`, `consoleDomainName`). */
export interface ConsoleDistributionConfig {
  /** The built console: index.html and its hashed `assets/`. @default the git-ignored console/dist */
  readonly assetsPath?: string;
  /** @default DEFAULT_CONSOLE_PRICE_CLASS */
  readonly priceClass?: ConsolePriceClass;
  /** @default - none: the distribution's own `*.cloudfront.net` name */
  readonly domain?: ConsoleDomain;
}

export interface ConsoleDistributionProps extends ConsoleDistributionConfig {
  /** The REST API's id and region, and the stage `/api/*` goes to. */
  readonly restApiId: string;
  readonly stageName: string;
  /**
   * The value sent as `EDGE_SECRET_HEADER` on every `/api/*` request (an origin header), which
   * makes the viewer address sent beside it believed (lambdas/identity/viewer-address.ts).
   */
  readonly edgeSecret: ISecret;
}

/** Where `npm run` builds the console (local/build-console.mjs). */
export const CONSOLE_BUILD_PATH = new URL('../../console/dist/', import.meta.url).pathname;
/** The viewer-request functions' sources: plain JS, as CloudFront runs them. */
export const CONSOLE_REWRITE_SOURCE = new URL('./console-spa-rewrite.js', import.meta.url).pathname;
export const VIEWER_ADDRESS_SOURCE = new URL('./console-viewer-address.js', import.meta.url).pathname;
/** Every build asset lives in this folder under a content-hashed name (console/vite.config.mjs). */
const ASSETS_FOLDER = 'assets';
/**
 * Time CloudFront waits for the API's next bytes: a buffered route answers within API Gateway's
 * 29 s, and a stream sends at least a heartbeat well within it. 60 s is the most CloudFront
 * allows without a quota increase.
 */
export const API_ORIGIN_READ_TIMEOUT_SECONDS = 60;

/**
 * The console from the API's own origin (docs/deployment.md, "Console"): one CloudFront
 * distribution serving the console's build from a private bucket (origin access control) for
 * every path, and passing `/api/*` uncached to the REST API's stage, so the console's calls are
 * same-origin and the `SameSite=Strict` session cookie goes with them.
 */
export class ConsoleDistribution extends Construct {
  readonly bucket: Bucket;
  readonly logs: Bucket;
  readonly distribution: Distribution;
  /** `https://<alias or *.cloudfront.net name>`: the origin the console's cookie writes come from. */
  readonly origins: readonly string[];
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleDistributionProps) {
    super(scope, id);
    const assetsPath = props.assetsPath ?? CONSOLE_BUILD_PATH;
    // The distribution's access logs and the bucket's: CloudFront's standard logs need ACLs.
    this.logs = new Bucket(this, 'Logs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.logs).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "It is the destination of the console bucket's server access logs and the distribution's " +
        'access logs; logging it too would need another bucket, without end.',
    });
    // Versioning off: the build is reproducible from git, and deployments keep the assets an
    // older index.html names. Retained on delete, as every bucket of the stack is: it holds only
    // the public build, at a few cents.
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.logs,
      serverAccessLogsPrefix: 'bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const rewrite = new EdgeFunction(this, 'SpaRewrite', {
      code: FunctionCode.fromInline(readFileSync(CONSOLE_REWRITE_SOURCE, 'utf8')),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Console paths without a file extension are index.html',
    });
    const viewerAddress = new EdgeFunction(this, 'ViewerAddress', {
      code: FunctionCode.fromInline(readFileSync(VIEWER_ADDRESS_SOURCE, 'utf8')),
      runtime: FunctionRuntime.JS_2_0,
      comment: "API requests carry the viewer's own address",
    });
    const region = Stack.of(this).region;
    // Policy names are the account's, across regions: the same stack name in another region
    // must not meet this one's.
    const headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      ...consoleHeadersPolicy(),
      responseHeadersPolicyName: `${region}-${Names.uniqueResourceName(this, { maxLength: 100 })}`,
    });

    const apiOrigin = new HttpOrigin(`${props.restApiId}.execute-api.${region}.${Stack.of(this).urlSuffix}`, {
      originPath: `/${props.stageName}`,
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      readTimeout: Duration.seconds(API_ORIGIN_READ_TIMEOUT_SECONDS),
      // A dynamic reference, resolved by CloudFormation at deploy: the value is not in the
      // template. An origin header replaces any header of the same name a viewer sends.
      customHeaders: { [EDGE_SECRET_HEADER]: props.edgeSecret.secretValue.unsafeUnwrap() },
    });
    const domain = props.domain;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${Stack.of(this).stackName} console and API`,
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        compress: true,
        functionAssociations: [{ function: rewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        // The API as it is: no cache, every viewer header but Host (the origin's own name is
        // what API Gateway routes on), every method; streamed answers pass through as they come.
        '/api/*': {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          compress: false,
          functionAssociations: [{ function: viewerAddress, eventType: FunctionEventType.VIEWER_REQUEST }],
        },
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableIpv6: true,
      priceClass: CONSOLE_PRICE_CLASSES[props.priceClass ?? DEFAULT_CONSOLE_PRICE_CLASS],
      enableLogging: true,
      logBucket: this.logs,
      logFilePrefix: 'distribution/',
      ...(domain
        ? {
            domainNames: [domain.domainName],
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
            certificate: Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
          }
        : {}),
    });
    this.acknowledgeByDesign(domain !== undefined);

    const ownName = `https://${this.distribution.distributionDomainName}`;
    this.origins = domain ? [`https://${domain.domainName}`, ownName] : [ownName];
    this.url = domain ? `https://${domain.domainName}` : ownName;
    if (domain?.hostedZone) this.addAliasRecords(domain.hostedZone, domain.domainName);

    // Hashed assets first, kept across deployments (an open page's index.html still names the
    // old ones); then index.html, which names them, and its cached copy invalidated.
    const assets = new BucketDeployment(this, 'DeployAssets', {
      destinationBucket: this.bucket,
      sources: [Source.asset(join(assetsPath, ASSETS_FOLDER))],
      destinationKeyPrefix: `${ASSETS_FOLDER}/`,
      cacheControl: [CacheControl.fromString(CONSOLE_IMMUTABLE_CACHE)],
      prune: false,
      memoryLimit: 256,
    });
    const pages = new BucketDeployment(this, 'DeployPages', {
      destinationBucket: this.bucket,
      sources: [Source.asset(assetsPath, { exclude: [ASSETS_FOLDER] })],
      cacheControl: [CacheControl.fromString(CONSOLE_REVALIDATE_CACHE)],
      prune: false,
      memoryLimit: 256,
      distribution: this.distribution,
      distributionPaths: ['/index.html'],
    });
    pages.node.addDependency(assets);
    this.acknowledgeDeploymentHandler();

    new CfnOutput(scope, 'ConsoleUrl', {
      value: this.url,
      description: 'The browser console (and the API under /api/)',
    });
    if (domain) {
      new CfnOutput(scope, 'ConsoleDistributionDomain', {
        value: this.distribution.distributionDomainName,
        description: `DNS target for ${domain.domainName} (CNAME, or an alias to the CloudFront zone Z2FDTNDATAQYW2)`,
      });
    }
  }

  private addAliasRecords(zoneRef: HostedZoneRef, domainName: string): void {
    const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
      hostedZoneId: zoneRef.id,
      zoneName: zoneRef.name,
    });
    const target = RecordTarget.fromAlias(new CloudFrontTarget(this.distribution));
    new ARecord(this, 'AliasA', { zone, recordName: domainName, target });
    new AaaaRecord(this, 'AliasAaaa', { zone, recordName: domainName, target });
  }

  private acknowledgeByDesign(ownCertificate: boolean): void {
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'No geo restriction by design: the console and the API serve their tenants wherever they are; ' +
          'an operator who must restrict countries adds it to the distribution.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          "A CloudFront web ACL must live in us-east-1, outside this regional stack. Every /api/* request still passes the stage's " +
          'regional web ACL (or the operator’s own), and the other paths are the public, cached console build.',
      },
    );
    if (!ownCertificate) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          "Without consoleDomainName the distribution answers on its *.cloudfront.net name with CloudFront's default " +
          'certificate, whose TLS policy CloudFront fixes; with an own certificate the policy is TLSv1.2_2021.',
      });
    }
  }

  /** The deployments' one handler function (aws-s3-deployment's, shared by both). */
  private acknowledgeDeploymentHandler(): void {
    const handler = Stack.of(this).node.children.find((child) =>
      child.node.id.startsWith('Custom::CDKBucketDeployment'),
    );
    if (!handler) throw new Error('no bucket deployment handler in the stack');
    const { region } = Stack.of(this);
    const partition = region.startsWith('cn-') ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';
    const stagingObjects = `arn:${partition}:s3:::cdk-${DefaultStackSynthesizer.DEFAULT_QUALIFIER}-assets-<AWS::AccountId>-${region}/*`;
    const copies =
      "aws-s3-deployment's handler copies the console build from the CDK's staging bucket into the console's " +
      'bucket once per deploy; its grants are the S3 read and write action groups on those two buckets ' +
      'objects (names unknown at synth), and CloudFront invalidations, which take no resource.';
    Validations.of(handler).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "aws-s3-deployment's handler runs with AWSLambdaBasicExecutionRole, only to write its own logs; it runs " +
          'once per deploy to copy the console build into the bucket.',
      },
      ...[
        'Action::s3:GetBucket*',
        'Action::s3:GetObject*',
        'Action::s3:List*',
        'Action::s3:Abort*',
        'Action::s3:DeleteObject*',
        `Resource::${stagingObjects}`,
        `Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement)}.Arn>/*`,
        'Resource::*',
      ].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason: copies })),
      {
        id: 'AwsSolutions-L1',
        reason:
          "aws-s3-deployment's handler runtime is the one the CDK release pins for its bundled AWS CLI layer; it " +
          'is updated with aws-cdk-lib, not by this stack.',
      },
    );
  }
}

/** CloudFront's names for the console's security headers; the rest go as custom headers. */
function consoleHeadersPolicy() {
  const {
    'Content-Security-Policy': csp,
    'X-Frame-Options': frame,
    'Referrer-Policy': referrer,
  } = CONSOLE_SECURITY_HEADERS;
  const named = new Set(['Content-Security-Policy', 'X-Content-Type-Options', 'X-Frame-Options', 'Referrer-Policy']);
  if (
    frame !== 'DENY' ||
    referrer !== 'no-referrer' ||
    CONSOLE_SECURITY_HEADERS['X-Content-Type-Options'] !== 'nosniff'
  )
    throw new Error('lib/console-security-headers.ts changed a header this policy maps by value: map it here too');
  const securityHeadersBehavior: ResponseSecurityHeadersBehavior = {
    contentSecurityPolicy: { contentSecurityPolicy: csp!, override: true },
    contentTypeOptions: { override: true },
    frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
    referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
    strictTransportSecurity: {
      accessControlMaxAge: Duration.seconds(CONSOLE_TRANSPORT_SECURITY.maxAgeSeconds),
      includeSubdomains: CONSOLE_TRANSPORT_SECURITY.includeSubdomains,
      preload: false,
      override: true,
    },
  };
  return {
    comment: 'The console: lib/console-security-headers.ts',
    securityHeadersBehavior,
    customHeadersBehavior: {
      customHeaders: Object.entries(CONSOLE_SECURITY_HEADERS)
        .filter(([header]) => !named.has(header))
        .map(([header, value]) => ({ header, value, override: true })),
    },
  };
}
