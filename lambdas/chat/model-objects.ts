import { listFamilies, PROVIDERS, resolveFamily, type ModelFamily } from '../catalog/model-catalog.js';
import { leadingCharacters } from '../schema/text-length.js';
import { ChatError } from './chat-errors.js';

/**
 * The model routes' answers in OpenAI's shape (docs/interface.md §2.4): one model object per
 * family, listed by `GET /api/v1/models` and retrieved by `GET /api/v1/models/{id}`.
 */
export interface ModelObject {
  readonly id: string;
  readonly object: 'model';
  readonly created: number;
  readonly owned_by: string;
  /** The family's name and every alias it answers to. */
  readonly _service: { readonly name: string; readonly aliases: readonly string[] };
}

/** A retrieved name is echoed in the 404 at most this long: the path may be kilobytes. */
const SHOWN_NAME_CHARS = 100;

export function modelObject(family: ModelFamily): ModelObject {
  return {
    id: family.defaultModel,
    object: 'model',
    created: family.created,
    owned_by: `gateway/${PROVIDERS[family.routes[0]!.provider].id}`,
    _service: { name: family.name, aliases: [family.alias, ...family.aliases] },
  };
}

export function modelList(): { readonly object: 'list'; readonly data: readonly ModelObject[] } {
  return { object: 'list', data: listFamilies().map(modelObject) };
}

/**
 * The model object for any name chat completions takes as `model` (a family alias or extra
 * alias, any case; a concrete route model id, exactly): always the family's canonical object,
 * the very entry the list holds, whose `id` is the family's default model whatever name was
 * asked (docs/interface.md §2.4). Unknown names are 404 `model_not_found`, as OpenAI answers.
 */
export function retrieveModel(name: string): ModelObject {
  const family = resolveFamily(name);
  if (family) return modelObject(family);
  const shown = leadingCharacters(name, SHOWN_NAME_CHARS);
  throw new ChatError(
    'model_not_found',
    `The model ${JSON.stringify(shown === name ? name : `${shown}…`)} does not exist; GET /api/v1/models lists them`,
  );
}
