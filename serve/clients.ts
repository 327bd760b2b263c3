// Who asks the reward service: the operator (a request bearing the operator token: it may reveal references,
// record scores that steer `level: "auto"` and nightly, and use the admin routes) or a trainer client (sample,
// verify, play), known by a client token the operator issued or else by its connection's address, normalised
// (client-address.ts), and, when it says so, its client id. Every client is untrusted: its id only divides its
// principal's share of the session slots (session-slots.ts) and never makes it independent of another id.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clientAddress } from './client-address.js';
import { ServeError } from './options.js';

export interface Client {
  /** The request bore the operator token. */
  trusted: boolean;
  /**
   * The unit of independence and of fair shares: 'operator'; 'token:NAME' for a client token the operator
   * issued; else the connection's address normalised ('loopback' for every loopback address, an IPv6 /64).
   */
  principal: string;
  /** The X-Envforge-Client header, when given: a share within its principal's. */
  id: string | null;
  /** principal and id together, as logs and the admin view name the client. */
  key: string;
}

/** The header a client may name itself with (1–64 printable ASCII characters, no spaces). */
export const CLIENT_HEADER = 'x-envforge-client';
/** The shortest operator token accepted: a guessable token is no role at all. */
export const MIN_TOKEN_CHARS = 16;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** The bearer tokens the service knows: the operator's, and the client tokens the operator issued (by name). */
export interface Credentials {
  /** Whether an operator token is configured (without one, no request is the operator's). */
  readonly hasOperator: boolean;
  /** Who a presented token names, or null for none: every known token is compared, in constant time. */
  who(presented: string): { operator: true } | { operator: false; name: string } | null;
}

/** A client token's name: what logs, incidents and the admin view call its client. */
const CLIENT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The credentials' check, made once (tokens too short to be secrets are refused: 400 E_USAGE). */
export function credentials(
  operatorToken?: string | null,
  clientTokens: Readonly<Record<string, string>> = {},
): Credentials {
  const check = (token: string, what: string) => {
    if (token.length < MIN_TOKEN_CHARS || /\s/.test(token))
      throw new ServeError(
        400,
        'E_USAGE',
        `${what} must be at least ${MIN_TOKEN_CHARS} characters without spaces (e.g. openssl rand -hex 32)`,
      );
    return digest(token);
  };
  const known: Array<{ digest: Buffer; who: { operator: true } | { operator: false; name: string } }> = [];
  if (operatorToken) known.push({ digest: check(operatorToken, 'the operator token'), who: { operator: true } });
  for (const [name, token] of Object.entries(clientTokens)) {
    if (!CLIENT_NAME.test(name))
      throw new ServeError(
        400,
        'E_USAGE',
        `a client token's name must be 1–64 letters, digits, '_', '.' or '-', got ${JSON.stringify(name.slice(0, 80))}`,
      );
    const d = check(token, `the client token of ${name}`);
    if (known.some((k) => timingSafeEqual(k.digest, d)))
      throw new ServeError(
        400,
        'E_USAGE',
        `the client token of ${name} is another credential's token: every client token must be its own`,
      );
    known.push({ digest: d, who: { operator: false, name } });
  }
  return {
    hasOperator: Boolean(operatorToken),
    who: (presented) => {
      const d = digest(presented);
      let found: { operator: true } | { operator: false; name: string } | null = null;
      for (const k of known) if (timingSafeEqual(k.digest, d)) found = k.who;
      return found;
    },
  };
}

const NO_CREDENTIALS = credentials();

/**
 * What a client is read from: a request's headers and the connection's address (Fastify's request, or a WebSocket
 * upgrade's).
 */
export interface Asking {
  headers: Record<string, string | string[] | undefined>;
  ip: string | undefined;
}

/**
 * The client a request comes from: the operator or a token's client by its bearer token, else its normalised
 * address. A bearer token that is no known credential is refused (401), never read as an anonymous client.
 */
export function clientOf(request: Asking, known: Credentials): Client {
  const auth = request.headers.authorization;
  let principal: string | null = null;
  if (typeof auth === 'string' && auth !== '') {
    const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(auth);
    const who = match ? known.who(match[1] as string) : null;
    if (!who)
      throw new ServeError(
        401,
        'E_UNAUTHORIZED',
        known.hasOperator
          ? 'the Authorization header carries neither the operator token nor a client token of this service'
          : 'the Authorization header carries no token this service knows (start it with --operator-token or ' +
              'ENVFORGE_OPERATOR_TOKEN for operator requests, --client-token NAME=TOKEN for named clients)',
      );
    if (who.operator) return { trusted: true, principal: 'operator', id: null, key: 'operator' };
    principal = `token:${who.name}`;
  }
  const header = request.headers[CLIENT_HEADER];
  if (header !== undefined && (typeof header !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(header))) {
    throw new ServeError(
      400,
      'E_BAD_REQUEST',
      `the ${CLIENT_HEADER} header must be one value of 1–64 printable ASCII characters (no spaces)`,
    );
  }
  principal ??= clientAddress(request.ip);
  const id = typeof header === 'string' ? header : null;
  return { trusted: false, principal, id, key: id === null ? principal : `${principal} ${id}` };
}

declare module 'fastify' {
  interface FastifyRequest {
    envforgeClient: Client | null;
  }
}

/** Reads each request's client once, before its handler: a token the service does not know is a 401 before any work. */
export function registerClients(app: FastifyInstance, known: Credentials): void {
  app.decorateRequest('envforgeClient', null);
  app.addHook('onRequest', async (request) => {
    request.envforgeClient = clientOf(request, known);
  });
}

/** The client of a request (registerClients read it). */
export function requestClient(request: FastifyRequest): Client {
  return request.envforgeClient ?? clientOf(request, NO_CREDENTIALS);
}

/** Refuses a client that is not the operator for `what` (403 naming the token it needs). */
export function requireOperator(client: Client, what: string, configured: boolean): void {
  if (client.trusted) return;
  throw new ServeError(
    403,
    'E_FORBIDDEN',
    configured
      ? `${what} needs the operator token (Authorization: Bearer <token>)`
      : `${what} needs the operator token, and this service has none: start it with --operator-token or ` +
          `ENVFORGE_OPERATOR_TOKEN`,
  );
}

/** A client as the journal keeps its Idempotency-Keys apart from other clients' (a digest: no address on disk). */
export function keyOwner(client: Client): string {
  return digest(client.key).toString('hex').slice(0, 32);
}

/** The one voter every client without a token is, whatever its address (V22-3). */
export const ANONYMOUS_VOTER = 'anonymous';

/**
 * A client as incidents keep it, for the independent-clients rule: a short hash of its client token's name (or the
 * operator), so the library holds no client addresses. Independence is a property of credentials, not addresses: one
 * process holds as many addresses as its host has (its IPv4, its IPv6 /64s, loopback), so every client without a
 * token is one voter, ANONYMOUS_VOTER (V22-3). Its X-Envforge-Client id is left out: ids are self-declared, and one
 * client naming itself three ways is still one client.
 */
export function incidentClient(client: Client): string {
  const voter = client.trusted || client.principal.startsWith('token:') ? client.principal : ANONYMOUS_VOTER;
  return `client:${digest(voter).toString('hex').slice(0, 12)}`;
}

/**
 * Who an incident is charged to and who it counts for: its principal (a short hash: no address on disk), which the
 * library charges what it keeps (V22-5: each principal its own budget, so no client's volume displaces another's),
 * and its voter (incidentClient).
 */
export function incidentParties(client: Client): { client: string; principal: string } {
  return {
    client: incidentClient(client),
    principal: `principal:${digest(client.principal).toString('hex').slice(0, 12)}`,
  };
}
