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
  }),
  apiGateway: Object.freeze({
    /** REST API, first 333 million requests a month. */
    perMillionRequests: 3.5,
  }),
  dynamodb: Object.freeze({
    /** On-demand. */
    perMillionWriteUnits: 0.625,
    perMillionReadUnits: 0.125,
  }),
  kms: Object.freeze({ perKeyMonth: 1 }),
  secretsManager: Object.freeze({ perSecretMonth: 0.4 }),
  cloudWatch: Object.freeze({
    perStandardAlarmMonth: 0.1,
    /** Beyond the three free dashboards; charged here as if none were free. */
    perDashboardMonth: 3,
    perLogGbIngested: 0.5,
  }),
  xray: Object.freeze({ perMillionTracesRecorded: 5 }),
  waf: Object.freeze({ perWebAclMonth: 5, perRuleMonth: 1, perMillionRequests: 0.6 }),
  stepFunctions: Object.freeze({ perThousandStandardTransitions: 0.025 }),
});
