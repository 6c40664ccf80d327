// Types of local/dynamodb-parsed-expressions.mjs, for the TypeScript that drives it (tests).
export declare const KEPT_EXPRESSIONS: number;
export declare function installParsedExpressions(capacity?: number): void;

/** A dynalite expression parser: `parse(text, { context })`, throwing on a malformed text. */
export interface ExpressionParser {
  parse(text: string, options: { context: Record<string, unknown> }): unknown;
}

export declare function keepParses<P extends ExpressionParser>(parser: P, capacity: number): P;
