/**
 * Reading a whole upstream answer into memory, for adapters whose answers are JSON documents
 * (MiniMax, FASHN): bounded, so an upstream cannot exhaust the function's memory, and parsed
 * only as far as "is it a JSON object".
 */

/** The body as text; throws `tooLarge()` once it passes `maxBytes`. */
export async function readBoundedText(
  body: AsyncIterable<Buffer>,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The text as a JSON object, or undefined when it is not one (arrays and scalars included). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
