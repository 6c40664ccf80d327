import { listFamilies } from '../catalog/model-catalog.js';
import { ENV, optionalEnv } from '../config/environment.js';
import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { configuredProviders } from '../providers/provider-config.js';

/** A family is `up` when at least one of its routes has a configured provider. */
export const handler = defineHandler('health', {
  handle: async () => {
    const providers = await configuredProviders();
    const services = listFamilies().map((family) => ({
      name: family.alias,
      status: family.routes.some((route) => providers.has(route.provider)) ? 'up' : 'unconfigured',
    }));
    return envelope({
      status: services.some((service) => service.status === 'up') ? 'healthy' : 'degraded',
      version: optionalEnv(ENV.gatewayVersion) ?? 'dev',
      timestamp: new Date().toISOString(),
      uptime: Math.round(process.uptime()),
      services,
    });
  },
});
