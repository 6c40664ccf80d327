/** `chat-completions` → `ChatCompletions`: construct ids and output names from route or provider ids. */
export function pascal(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
