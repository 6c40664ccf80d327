// Types of local/loopback-keep-alive.mjs, which the plain-JavaScript children import too.
import type { Server } from 'node:http';

export declare const LOOPBACK_KEEP_ALIVE_MS: number;
export declare function withLoopbackKeepAlive<T extends Server>(server: T): T;
