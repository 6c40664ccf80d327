import { Match } from 'aws-cdk-lib/assertions';
import { parseCustomDomain } from '../../lib/context.js';
import { build, REGION } from './support.js';

/** The API under the operator's own host name: context checks and what the stack synthesizes. */
const CERT = `arn:aws:acm:${REGION}:123456789012:certificate/0b6e1a2c-3d4e-4f5a-8b9c-0d1e2f3a4b5c`;

describe('context', () => {
  test('nothing set is no custom domain; a name with its certificate is one', () => {
    expect(parseCustomDomain(REGION, {})).toBeUndefined();
    expect(parseCustomDomain(REGION, { domainName: 'api.example.com', certificateArn: CERT })).toEqual({
      domainName: 'api.example.com',
      certificateArn: CERT,
    });
    expect(
      parseCustomDomain(REGION, {
        domainName: 'api.example.com',
        certificateArn: CERT,
        hostedZoneId: 'Z0123456789ABC',
        hostedZoneName: 'example.com',
      }),
    ).toMatchObject({ hostedZone: { id: 'Z0123456789ABC', name: 'example.com' } });
  });

  test.each([
    [{ domainName: 'api.example.com' }, /go together/],
    [{ certificateArn: CERT }, /go together/],
    [{ domainName: 'API.example.com', certificateArn: CERT }, /not a lower-case host name/],
    [
      { domainName: 'api.example.com', certificateArn: 'arn:aws:acm:eu-west-1:1:certificate/x' },
      /not an ACM certificate/,
    ],
    [
      { domainName: 'api.example.com', certificateArn: CERT.replace(REGION, 'us-east-1') },
      /in us-east-1, but a regional API in eu-west-1/,
    ],
    [{ domainName: 'api.example.com', certificateArn: CERT, hostedZoneId: 'Z0123456789ABC' }, /go together/],
    [
      {
        domainName: 'api.example.com',
        certificateArn: CERT,
        hostedZoneId: 'Z0123456789ABC',
        hostedZoneName: 'other.com',
      },
      /must be a zone that contains api.example.com/,
    ],
    [
      { domainName: 'api.example.com', certificateArn: CERT, hostedZoneId: 'zone', hostedZoneName: 'example.com' },
      /not a Route 53 zone id/,
    ],
  ])('refuses %p', (raw, message) => {
    expect(() => parseCustomDomain(REGION, raw)).toThrow(message);
  });
});

describe('stack', () => {
  const { template } = build({
    customDomain: {
      domainName: 'api.example.com',
      certificateArn: CERT,
      hostedZone: { id: 'Z0123456789ABC', name: 'example.com' },
    },
  });

  test('a regional domain with TLS 1.2 and the certificate, mapped at the root to the stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'api.example.com',
      RegionalCertificateArn: CERT,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    template.hasResourceProperties('AWS::ApiGateway::BasePathMapping', {
      RestApiId: Match.anyValue(),
      Stage: Match.anyValue(),
      BasePath: Match.absent(),
    });
  });

  test('an A alias record in the zone (no AAAA: the domain answers on IPv4 only), and the DNS target as outputs', () => {
    template.hasResourceProperties('AWS::Route53::RecordSet', {
      Name: 'api.example.com.',
      Type: 'A',
      HostedZoneId: 'Z0123456789ABC',
      AliasTarget: Match.objectLike({ DNSName: Match.anyValue() }),
    });
    template.resourcePropertiesCountIs('AWS::Route53::RecordSet', { Type: 'AAAA' }, 0);
    template.hasOutput('CustomDomainTarget', Match.anyValue());
    template.hasOutput('CustomDomainTargetZone', Match.anyValue());
  });

  test('without one, the stack has no domain', () => {
    build().template.resourceCountIs('AWS::ApiGateway::DomainName', 0);
  });
});
