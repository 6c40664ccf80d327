import { listFamilies } from '../catalog/model-catalog.js';
import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { configuredProviders } from '../providers/provider-config.js';

/** A family is `up` when at least one of its routes has a configured provider. */
export const handler = defineHandler('health', {
  handle: async (call) => {
    const providers = await configuredProviders(call.config);
    const services = listFamilies().map((family) => ({
      name: family.alias,
      status: family.routes.some((route) => providers.has(route.provider)) ? 'up' : 'unconfigured',
    }));
    return envelope({
      status: services.some((service) => service.status === 'up') ? 'healthy' : 'degraded',
      version: call.config.version,
      timestamp: new Date().toISOString(),
      uptime: Math.round(process.uptime()),
      services,
    });
  },
});
