import { listFamilies, PROVIDERS } from '../catalog/model-catalog.js';
import { defineHandler } from '../http/define-handler.js';
import { bare } from '../http/reply.js';

/** OpenAI's model list shape (docs/interface.md §2.4); `_service` carries the family name and aliases. */
const modelList = {
  object: 'list',
  data: listFamilies().map((family) => ({
    id: family.defaultModel,
    object: 'model',
    created: family.created,
    owned_by: `gateway/${PROVIDERS[family.routes[0]!.provider].id}`,
    _service: { name: family.name, aliases: [family.alias, ...family.aliases] },
  })),
};

export const handler = defineHandler('models-list', { handle: async () => bare(modelList) });
