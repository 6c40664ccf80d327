/** Hours in the month the prices are quoted for (AWS's 730). */
export const HOURS_PER_MONTH = 730;

/**
 * AWS list prices the cost model uses: us-east-1, on-demand, as published in November 2026.
 * Other regions differ by a few percent to a third; the model's point is the shape of the
 * bill (what is paid while idle, what each request adds), not the last cent.
 */
export const AWS_PRICES = Object.freeze({
  lambda: Object.freeze({
    perMillionRequests: 0.2,
    /** arm64, per GB-second. */
    perGbSecond: 0.0000133334,
    /**
     * Lambda Managed Instances (aws.amazon.com/lambda/pricing, "Lambda Managed Instances"): the
     * requests at the on-demand rate, no duration charge, the EC2 instances at their own price, and
     * a management fee of 15% of the instances' on-demand price (Savings Plans lower the EC2 part,
     * not the fee).
     */
    managedInstances: Object.freeze({ perMillionRequests: 0.2, managementFeeShare: 0.15 }),
  }),
  /**
   * EC2 on-demand Linux prices of the Graviton types a Managed Instances capacity provider may be
   * pinned to (aws.amazon.com/ec2/pricing/on-demand, us-east-1, as listed in November 2026), with
   * their size.
   */
  ec2: Object.freeze({
    'c7g.large': Object.freeze({ vcpus: 2, memoryGiB: 4, perHour: 0.0725 }),
    'c7g.xlarge': Object.freeze({ vcpus: 4, memoryGiB: 8, perHour: 0.145 }),
    'c7g.2xlarge': Object.freeze({ vcpus: 8, memoryGiB: 16, perHour: 0.29 }),
    'm7g.large': Object.freeze({ vcpus: 2, memoryGiB: 8, perHour: 0.0816 }),
    'm7g.xlarge': Object.freeze({ vcpus: 4, memoryGiB: 16, perHour: 0.1632 }),
    'm7g.2xlarge': Object.freeze({ vcpus: 8, memoryGiB: 32, perHour: 0.3264 }),
  } satisfies Record<string, { vcpus: number; memoryGiB: number; perHour: number }>),
  /**
   * NAT instances of the VPC the Managed Instances mode makes (`managedInstancesNatInstanceType`):
   * Graviton burstable types, EC2 on-demand Linux (aws.amazon.com/ec2/pricing/on-demand, us-east-1),
   * with their baseline network bandwidth in each direction (EC2 User Guide, network performance of
   * the general purpose types; every size bursts to 5 Gbps while its network credits last).
   * Well-known list prices, not checked against a current AWS page when added (November 2026).
   */
  natInstances: Object.freeze({
    't4g.micro': Object.freeze({ vcpus: 2, memoryGiB: 1, perHour: 0.0084, baselineGbps: 0.064 }),
    't4g.small': Object.freeze({ vcpus: 2, memoryGiB: 2, perHour: 0.0168, baselineGbps: 0.128 }),
    't4g.medium': Object.freeze({ vcpus: 2, memoryGiB: 4, perHour: 0.0336, baselineGbps: 0.256 }),
    't4g.large': Object.freeze({ vcpus: 2, memoryGiB: 8, perHour: 0.0672, baselineGbps: 0.512 }),
    't4g.xlarge': Object.freeze({ vcpus: 4, memoryGiB: 16, perHour: 0.1344, baselineGbps: 1.024 }),
  } satisfies Record<string, { vcpus: number; memoryGiB: number; perHour: number; baselineGbps: number }>),
  /**
   * EBS gp3 per GB-month (aws.amazon.com/ebs/pricing), the NAT instances' root volumes. Well-known
   * list price, not checked against a current AWS page when added (November 2026).
   */
  ebs: Object.freeze({ gp3PerGbMonth: 0.08 }),
  /**
   * VPC egress (aws.amazon.com/vpc/pricing): a NAT gateway per hour, and per GB it processes in
   * either direction; gateway endpoints (DynamoDB, S3) cost nothing; every public IPv4 address
   * (the NAT gateway's Elastic IP and a NAT instance's own address among them) per hour.
   */
  vpc: Object.freeze({ natGatewayPerHour: 0.045, natPerGbProcessed: 0.045, publicIpv4PerHour: 0.005 }),
  apiGateway: Object.freeze({
    /** REST API, first 333 million requests a month. */
    perMillionRequests: 3.5,
  }),
  dynamodb: Object.freeze({
    /** On-demand. */
    perMillionWriteUnits: 0.625,
    perMillionReadUnits: 0.125,
    /**
     * Export to S3, incremental: per GB of changed data processed, at least 10 MB an export.
     * Well-known list price, not checked against a current AWS page when added (November 2026).
     */
    perGbIncrementalExport: 0.1,
    minimumBytesPerIncrementalExport: 10 * 1024 ** 2,
  }),
  kms: Object.freeze({ perKeyMonth: 1 }),
  secretsManager: Object.freeze({ perSecretMonth: 0.4 }),
  cloudWatch: Object.freeze({
    /**
     * A standard-resolution alarm a month, billed per metric it reads: a metric-math alarm over
     * three metrics is three alarm-months (aws.amazon.com/cloudwatch/pricing, "Alarms").
     */
    perStandardAlarmMonth: 0.1,
    /** Beyond the three free dashboards; charged here as if none were free. */
    perDashboardMonth: 3,
    perLogGbIngested: 0.5,
    /**
     * Custom metrics (EMF included) per metric-month, prorated by the hour, by volume tier:
     * $0.30 for the first 10,000, then $0.10, $0.05 and $0.02 (checked against public pricing
     * write-ups, November 2026). The 10 free metrics of the free tier are not applied.
     */
    customMetricTiers: Object.freeze([
      Object.freeze({ upTo: 10_000, perMetricMonth: 0.3 }),
      Object.freeze({ upTo: 250_000, perMetricMonth: 0.1 }),
      Object.freeze({ upTo: 1_000_000, perMetricMonth: 0.05 }),
      Object.freeze({ upTo: Infinity, perMetricMonth: 0.02 }),
    ]),
  }),
  xray: Object.freeze({ perMillionTracesRecorded: 5 }),
  /**
   * WAF (aws.amazon.com/waf/pricing): per web ACL and per rule a month (a managed rule group is
   * one rule), and per million requests inspected up to the default body inspection size.
   */
  waf: Object.freeze({ perWebAclMonth: 5, perRuleMonth: 1, perMillionRequests: 0.6 }),
  /**
   * CloudFront (aws.amazon.com/cloudfront/pricing, pay as you go, United States and Europe): HTTPS
   * requests per million, data out to the internet per GB (first 10 TB), CloudFront Functions per
   * million invocations. Well-known list prices, not checked against a current AWS page when added
   * (November 2026).
   */
  cloudFront: Object.freeze({ perMillionHttpsRequests: 1, perGbOut: 0.085, perMillionFunctionInvocations: 0.1 }),
  stepFunctions: Object.freeze({ perThousandStandardTransitions: 0.025 }),
  /** S3 Standard, first 50 TB; Infrequent Access (after 90 days) is $0.0125. Well-known list prices. */
  s3: Object.freeze({ perGbMonthStandard: 0.023, perThousandPuts: 0.005, perThousandGets: 0.0004 }),
  /**
   * Per TB of data scanned (compressed, as stored), rounded up to the MB, at least 10 MB a query;
   * a cancelled query is billed for what it scanned (checked against public write-ups, November 2026).
   */
  athena: Object.freeze({ perTbScanned: 5, minimumBytesPerQuery: 10 * 1024 ** 2 }),
});
