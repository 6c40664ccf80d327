/**
 * The console's built files (console/dist, local/build-console.mjs) for GET and HEAD requests to
 * paths outside /api/, as the cloud's distribution serves them from its bucket: a file by its
 * path, index.html for `/` and for any other path without a file extension (the console routes
 * on the client), 404 for a missing file. Paths are decoded once and refused if any segment is
 * `.` or `..`, holds a backslash, a NUL or starts with a dot, so nothing outside the build can
 * be named, however it is encoded.
 */
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import {
  CONSOLE_IMMUTABLE_CACHE,
  CONSOLE_REVALIDATE_CACHE,
  CONSOLE_SECURITY_HEADERS,
} from '../lib/console-security-headers.js';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Whether a path is the API's: those go to the routes, never to the console. */
export const isApiPath = (pathname: string): boolean => pathname === '/api' || pathname.startsWith('/api/');

export type ConsoleFiles = (req: IncomingMessage, res: ServerResponse, pathname: string) => Promise<void>;

export function consoleFiles(folder: string): ConsoleFiles {
  const root = resolve(folder);
  return async (req, res, pathname) => {
    const segments = safeSegments(pathname);
    if (segments === undefined) return answer(req, res, 400, 'Bad path');
    const file = join(root, ...segments);
    if (file !== root && !file.startsWith(root + sep)) return answer(req, res, 400, 'Bad path');
    if (segments.length > 0 && (await isFile(file))) {
      const immutable = segments[0] === 'assets';
      return send(req, res, file, immutable ? CONSOLE_IMMUTABLE_CACHE : CONSOLE_REVALIDATE_CACHE);
    }
    const last = segments[segments.length - 1] ?? '';
    if (extname(last) !== '') return answer(req, res, 404, 'Not found');
    const index = join(root, 'index.html');
    if (!(await isFile(index)))
      return answer(req, res, 503, 'The console is not built: npm start builds it (local/build-console.mjs)');
    return send(req, res, index, CONSOLE_REVALIDATE_CACHE);
  };
}

/** The path's segments, decoded, or undefined when one could reach outside the folder or is hidden. */
function safeSegments(pathname: string): string[] | undefined {
  const segments: string[] = [];
  for (const raw of pathname.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === '.' || segment === '..' || segment.startsWith('.') || /[\\/\0]/.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function send(req: IncomingMessage, res: ServerResponse, file: string, cacheControl: string): Promise<void> {
  const body = await readFile(file);
  res.writeHead(200, {
    ...CONSOLE_SECURITY_HEADERS,
    'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'Content-Length': String(body.length),
    'Cache-Control': cacheControl,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function answer(req: IncomingMessage, res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    ...CONSOLE_SECURITY_HEADERS,
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : `${text}\n`);
}
