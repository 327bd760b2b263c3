// Which browser pages may talk to the reward service. A request without an Origin header comes from no browser
// (trainers, OpenEnv's Python clients, Node's fetch and ws send none) and is always served; one with an Origin is
// served only when the operator allowed that origin (--allow-origin). WebSockets are outside CORS, and a bodiless
// POST needs no preflight, so without this any page the operator opens could play episodes and hold connections.
import type { FastifyInstance } from 'fastify';
import { hostRefusal } from '../contract/hosts.js';
import { ServeError } from './options.js';

/** An origin as browsers send it: `scheme://host[:port]`, lower case, default ports dropped; null when it is none. */
export function normalOrigin(text: string): string | null {
  if (text === 'null') return null; // sandboxed frames and files: no origin anyone can allow
  try {
    const url = new URL(text);
    if (url.origin === 'null' || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '')
      return null;
    return url.origin;
  } catch {
    return null;
  }
}

/** The allowed origins, normalised; a malformed one is a usage error (400 E_USAGE) before the service starts. */
export function allowedOrigins(list: readonly string[] = []): ReadonlySet<string> {
  return new Set(
    list.map((text) => {
      const origin = normalOrigin(text.replace(/\/$/, ''));
      if (!origin)
        throw new ServeError(
          400,
          'E_USAGE',
          `--allow-origin takes an origin such as http://localhost:3000 (scheme, host, port; no path), got ` +
            `${JSON.stringify(text.slice(0, 120))}`,
        );
      return origin;
    }),
  );
}

/** Why a request with these headers is refused, or null when it may be served. */
export function originRefusal(
  headers: Record<string, string | string[] | undefined>,
  allowed: ReadonlySet<string>,
): string | null {
  const origin = headers.origin;
  if (origin === undefined) return null;
  const text = Array.isArray(origin) ? origin.join(', ') : origin;
  const normal = typeof origin === 'string' ? normalOrigin(origin) : null;
  if (normal !== null && allowed.has(normal)) return null;
  return (
    `requests from browser pages are refused unless their origin is allowed (envforge serve --allow-origin ` +
    `ORIGIN); this one came from ${JSON.stringify(text.slice(0, 120))}. Trainers and OpenEnv's clients send no ` +
    `Origin header and are always served`
  );
}

/**
 * Refuses every request (any method) from a page whose origin the operator did not allow: 403 E_ORIGIN, before any
 * work.
 */
export function registerOriginCheck(app: FastifyInstance, allowed: ReadonlySet<string>): void {
  app.addHook('onRequest', async (request) => {
    const refusal = originRefusal(request.headers, allowed);
    if (refusal) throw new ServeError(403, 'E_ORIGIN', refusal);
  });
}

/**
 * Refuses every request whose Host header names this service by a name that could have been re-pointed at it (DNS
 * rebinding): 403 E_HOST.
 */
export function registerHostCheck(app: FastifyInstance, bindHost: string, allowed: ReadonlySet<string>): void {
  app.addHook('onRequest', async (request) => {
    const refusal = hostRefusal(request.headers.host, bindHost, allowed);
    if (refusal) throw new ServeError(403, 'E_HOST', refusal);
  });
}
