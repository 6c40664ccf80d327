/** `chat-completions` → `ChatCompletions`: construct ids and output names from route or provider ids. */
export function pascal(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** Where a stack's functions file their metrics, logs and traces. */
export interface ObservabilityNames {
  /** The CloudWatch metric namespace. */
  readonly namespace: string;
  /** Powertools' `service`: a dimension of every metric, a key of every log line, a trace annotation. */
  readonly service: string;
}

/**
 * Derived from the stack name, so two stacks in one account and region (staging beside prod)
 * never read each other's metrics in their alarms and dashboards. The default stack,
 * `AiGateway`, keeps the names it always had: namespace `AiGateway`, service `ai-gateway`.
 */
export function observabilityNames(stackName: string): ObservabilityNames {
  const service = stackName
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .toLowerCase();
  return { namespace: stackName, service };
}
