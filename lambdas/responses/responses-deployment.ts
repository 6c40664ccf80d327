import { randomBytes } from 'node:crypto';
import { deploymentChatDeps } from '../chat/chat-deployment.js';
import { checkChatImageHosts } from '../chat/chat-request-checks.js';
import type { GatewayConfiguration } from '../config/configuration.js';
import { deleteStoredResponse, getStoredResponse, putStoredResponse } from '../store/stored-responses.js';
import { tenantClients } from '../store/tenant-sessions.js';
import type { ResponsesDeps } from './responses-core.js';

const made = new WeakMap<GatewayConfiguration, ResponsesDeps>();

/**
 * The Responses core's dependencies in a deployment: the chat core's own (one set per
 * configuration, shared with chat completions: balancer positions, caches), and the stored
 * responses, read under the caller's tenant session and written by the function's role (which
 * may write only `ACCOUNT#*#RESPONSE#*` items of the jobs table).
 */
export function deploymentResponsesDeps(config: GatewayConfiguration): ResponsesDeps {
  let deps = made.get(config);
  if (!deps) made.set(config, (deps = responsesDeps(config)));
  return deps;
}

function responsesDeps(config: GatewayConfiguration): ResponsesDeps {
  return {
    chat: deploymentChatDeps(config),
    readStored: async (ref) => getStoredResponse(ref, (await tenantClients(ref.accountId)).dynamo),
    putStored: (ref, body) => putStoredResponse(ref, body),
    deleteStored: (ref) => deleteStoredResponse(ref),
    checkImageHosts: (request, fieldOf) => checkChatImageHosts(request, {}, fieldOf),
    // 24 random bytes, as hex: OpenAI's ids are about as long, and no two of ours collide.
    newId: (prefix) => `${prefix}_${randomBytes(24).toString('hex')}`,
    now: Date.now,
  };
}
