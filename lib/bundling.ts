/**
 * How every function is bundled (esbuild through NodejsFunction, no Docker). Data shared by
 * the stack and the bundle benchmark, so the figures describe what is deployed.
 */
export const LAMBDA_BUNDLING = {
  target: 'node24',
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  /** Prefer ESM builds of dependencies: smaller, tree-shakable bundles. */
  mainFields: ['module', 'main'],
  /**
   * The Node.js 24 Lambda runtime ships the AWS SDK v3; bundling it would only add weight.
   * `@opentelemetry/api` is bundled, not external: the OpenTelemetry layer bundles its SDK and
   * API into its own files and installs no package an import could resolve to, and the bundled
   * copy finds the layer's provider through the API's process-wide global
   * (lambdas/observability/tracer.ts).
   */
  externalModules: ['@aws-sdk/*'],
  /** ESM bundles still meet CommonJS dependencies that call `require`. */
  banner:
    "import { createRequire as __gatewayCreateRequire } from 'node:module'; const require = __gatewayCreateRequire(import.meta.url);",
} as const;
