// Who asks the reward service: the operator (a request bearing the operator token: it may reveal references,
// record scores that steer `level: "auto"` and nightly, and use the admin routes) or a trainer client (sample,
// verify, play), known by the connection's address and, when it says so, its client id. Every client is
// untrusted: its id only divides its address's share of the session slots (session-slots.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServeError } from './options.js';

export interface Client {
  /** The request bore the operator token. */
  trusted: boolean;
  /** The connection's address ('operator' for the operator): the unit of independence and of fair shares. */
  address: string;
  /** The X-Envforge-Client header, when given: a share within its address. */
  id: string | null;
  /** address and id together, as logs and the admin view name the client. */
  key: string;
}

/** The header a client may name itself with (1–64 printable ASCII characters, no spaces). */
export const CLIENT_HEADER = 'x-envforge-client';
/** The shortest operator token accepted: a guessable token is no role at all. */
export const MIN_TOKEN_CHARS = 16;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** The operator token's check, made once: a constant-time comparison of digests, so timing tells nothing. */
export function operatorCheck(token: string | null | undefined): ((presented: string) => boolean) | null {
  if (!token) return null;
  if (token.length < MIN_TOKEN_CHARS || /\s/.test(token)) throw new ServeError(400, 'E_USAGE', `the operator token must be at least ${MIN_TOKEN_CHARS} characters without spaces (e.g. openssl rand -hex 32)`);
  const expected = digest(token);
  return (presented) => timingSafeEqual(digest(presented), expected);
}

/** What a client is read from: a request's headers and the connection's address (Fastify's request, or a WebSocket upgrade's). */
export interface Asking {
  headers: Record<string, string | string[] | undefined>;
  ip: string | undefined;
}

/** The client a request comes from; a bearer token that is not the operator's is refused (401), never ignored. */
export function clientOf(request: Asking, isOperator: ((presented: string) => boolean) | null): Client {
  const auth = request.headers.authorization;
  if (typeof auth === 'string' && auth !== '') {
    const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(auth);
    if (!match || !isOperator || !isOperator(match[1] as string)) {
      throw new ServeError(401, 'E_UNAUTHORIZED', isOperator ? 'the Authorization header does not carry the operator token' : 'this service has no operator token: send no Authorization header (start it with --operator-token or ENVFORGE_OPERATOR_TOKEN for operator requests)');
    }
    return { trusted: true, address: 'operator', id: null, key: 'operator' };
  }
  const header = request.headers[CLIENT_HEADER];
  if (header !== undefined && (typeof header !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(header))) {
    throw new ServeError(400, 'E_BAD_REQUEST', `the ${CLIENT_HEADER} header must be one value of 1–64 printable ASCII characters (no spaces)`);
  }
  const address = request.ip || 'unknown';
  const id = typeof header === 'string' ? header : null;
  return { trusted: false, address, id, key: id === null ? address : `${address} ${id}` };
}

declare module 'fastify' {
  interface FastifyRequest {
    envforgeClient: Client | null;
  }
}

/** Reads each request's client once, before its handler: a token that is not the operator's is a 401 before any work. */
export function registerClients(app: FastifyInstance, isOperator: ((presented: string) => boolean) | null): void {
  app.decorateRequest('envforgeClient', null);
  app.addHook('onRequest', async (request) => {
    request.envforgeClient = clientOf(request, isOperator);
  });
}

/** The client of a request (registerClients read it). */
export function requestClient(request: FastifyRequest): Client {
  return request.envforgeClient ?? clientOf(request, null);
}

/** Refuses a client that is not the operator for `what` (403 naming the token it needs). */
export function requireOperator(client: Client, what: string, configured: boolean): void {
  if (client.trusted) return;
  throw new ServeError(403, 'E_FORBIDDEN', configured ? `${what} needs the operator token (Authorization: Bearer <token>)` : `${what} needs the operator token, and this service has none: start it with --operator-token or ENVFORGE_OPERATOR_TOKEN`);
}

/** A client's address as incidents keep it: a short hash, so the library holds no client addresses. */
export function incidentClient(client: Client): string {
  return `client:${digest(client.address).toString('hex').slice(0, 12)}`;
}
