/**
 * The documented identity filter for fight ballots (issue 9, section 4): LLM judges favour
 * answers they recognise as their own or as a famous vendor's, so every model and vendor name in
 * an answer is replaced with `[model]` before the answer is shown to a voter.
 *
 * What is masked (case-insensitive):
 * - every catalog name: each family's alias, extra aliases, human name, owner and default model,
 *   and each route's model id, whole (`openai/gpt-5`) and the part after `/` (`gpt-5`);
 * - the brand words in BRAND_WORDS below (vendors, products, model lines);
 * - a version written straight after a name is part of it: `GPT-4o-mini`, `Claude 3`,
 *   `gemini-1.5-flash`, `Llama 3.1`, `grok4` are masked whole (a separator `-`, `.`, `_` or one
 *   space, then a digit, then letters, digits, `.`, `_` and `-`); a `.` or `-` ending the match
 *   is given back, so a sentence's full stop survives;
 * - separators inside a name are interchangeable: `claude-sonnet-4-5`, `Claude Sonnet 4.5` and
 *   `claude_sonnet_4.5` are the same name.
 *
 * Whole tokens only: a name matches only where the characters around it are not ASCII letters,
 * digits or `_`. So `metadata`, `grokking`, `Googleplex` and `llamas` stay as written, while
 * `Meta's`, `(Claude)` and `GPT-5:` are masked. Longer names are tried first, so
 * `claude-sonnet-4-5` becomes one `[model]`, never `[model]-sonnet-4-5`.
 *
 * Known over-masking, accepted because a leaked identity biases the vote and a masked common
 * word barely does: the catalog's aliases include ordinary words (`meta`, `scout`, `sonnet`,
 * `bard`, `moonshot`, `ds`), and a number after a vendor name is taken as a version
 * (`Google 2024`).
 *
 * The regex is built once at load from our own escaped literals: an alternation of literals
 * with single-character separator classes, one optional version suffix with a single
 * quantifier, and one-character look-arounds; no nested quantifiers, so matching stays linear.
 */

import { FAMILIES } from '../catalog/model-catalog.js';

export const MODEL_MASK = '[model]';

/**
 * Vendor, product and model-line names beyond the catalog's own. Names that are also common
 * words in answers (Haiku, Opus, PaLM, Phi, Perplexity, Cohere) are left out on purpose: masking them
 * would damage ordinary answers more than it hides.
 */
export const BRAND_WORDS: readonly string[] = Object.freeze([
  'OpenAI',
  'ChatGPT',
  'GPT',
  'DALL-E',
  'Anthropic',
  'Claude',
  'Google',
  'Gemini',
  'Gemma',
  'DeepMind',
  'Bard',
  'xAI',
  'Grok',
  'Meta',
  'Llama',
  'Mistral',
  'Mistral AI',
  'Mixtral',
  'Le Chat',
  'DeepSeek',
  'Qwen',
  'Alibaba',
  'Tongyi',
  'Moonshot',
  'Moonshot AI',
  'Kimi',
  'Microsoft',
  'Copilot',
  'Amazon Nova',
]);

/** Every name the filter masks, lowercase with `-` for any separator, longest first. */
export const MASKED_NAMES: readonly string[] = Object.freeze(
  [...new Set([...catalogNames(), ...BRAND_WORDS].map((name) => name.toLowerCase().replace(/[-._ ]/g, '-')))].sort(
    (a, b) => b.length - a.length || a.localeCompare(b),
  ),
);

function catalogNames(): string[] {
  return FAMILIES.flatMap((family) => [
    family.alias,
    ...family.aliases,
    family.name,
    family.owner,
    family.defaultModel,
    ...family.routes.flatMap((route) => [route.model, ...route.model.split('/').slice(1)]),
  ]);
}

const SEPARATOR = '[-._ ]';
const TOKEN_CHAR = 'A-Za-z0-9_';
const VERSION_SUFFIX = `(?:${SEPARATOR}?[0-9][${TOKEN_CHAR}.-]*)?`;

/** A name as a pattern: its literal pieces escaped, any separator between them interchangeable. */
function namePattern(name: string): string {
  return name
    .split(/[-._ ]/)
    .map((piece) => piece.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'))
    .join(SEPARATOR);
}

const IDENTITY = new RegExp(
  `(?<![${TOKEN_CHAR}])(?:${MASKED_NAMES.map(namePattern).join('|')})${VERSION_SUFFIX}(?![${TOKEN_CHAR}])`,
  'gi',
);

/** `text` with every model and vendor name (see the header) replaced with MODEL_MASK. */
export function maskIdentities(text: string): string {
  return text.replace(IDENTITY, (match) => MODEL_MASK + trailingPunctuation(match));
}

/** The run of `.` and `-` that ends `match`: punctuation of the sentence, not of the name. */
function trailingPunctuation(match: string): string {
  let start = match.length;
  while (start > 0 && (match[start - 1] === '.' || match[start - 1] === '-')) start--;
  return match.slice(start);
}
