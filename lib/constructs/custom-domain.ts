import { CfnOutput } from 'aws-cdk-lib';
import { BasePathMapping, DomainName, EndpointType, SecurityPolicy, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';

/** A public hosted zone to write the domain's alias records in. */
export interface HostedZoneRef {
  readonly id: string;
  /** The zone's own name, e.g. `example.com` for `api.example.com`. */
  readonly name: string;
}

export interface CustomDomainProps {
  readonly api: RestApi;
  /** The API's host name, e.g. `api.example.com`. */
  readonly domainName: string;
  /** An ACM certificate for `domainName` in the stack's region (a regional API needs a regional certificate). */
  readonly certificateArn: string;
  /**
   * Where to write the domain's A alias record.
   * @default - none: point the name at the `CustomDomainTarget` output yourself (a CNAME, or an alias)
   */
  readonly hostedZone?: HostedZoneRef;
}

/**
 * The API under the operator's own host name: a regional API Gateway custom domain (TLS 1.2
 * at least) mapped to the stage at the root, so paths stay `/api/v1/...`, and optionally the
 * DNS alias records. The execute-api URL keeps working beside it.
 */
export class CustomDomain extends Construct {
  readonly domain: DomainName;

  constructor(scope: Construct, id: string, props: CustomDomainProps) {
    super(scope, id);
    this.domain = new DomainName(this, 'Domain', {
      domainName: props.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    new BasePathMapping(this, 'Mapping', {
      domainName: this.domain,
      restApi: props.api,
      stage: props.api.deploymentStage,
    });
    if (props.hostedZone) this.addAliasRecords(props.hostedZone, props.domainName);
    new CfnOutput(scope, 'CustomDomainTarget', {
      value: this.domain.domainNameAliasDomainName,
      description: `DNS target for ${props.domainName} (CNAME, or an alias with hosted zone CustomDomainTargetZone)`,
    });
    new CfnOutput(scope, 'CustomDomainTargetZone', { value: this.domain.domainNameAliasHostedZoneId });
  }

  private addAliasRecords(zoneRef: HostedZoneRef, domainName: string): void {
    const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
      hostedZoneId: zoneRef.id,
      zoneName: zoneRef.name,
    });
    const target = RecordTarget.fromAlias(new ApiGatewayDomain(this.domain));
    // IPv4 only: a regional custom domain answers on IPv4, so an AAAA alias would point IPv6
    // clients at nothing (API Gateway's dual-stack domains are not in this CDK's DomainName).
    new ARecord(this, 'AliasA', { zone, recordName: domainName, target });
  }
}
