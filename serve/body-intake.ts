// How the service takes in request bodies: each is charged to its client's share of the bytes in flight from its
// headers (body-budget.ts), must arrive within the body deadline, and a large JSON body is parsed off the event loop,
// in turn by client (json-lane.ts); a refused or dropped body closes its connection (V20-1, V20-3). A body's charge
// ends when its parse does and its connection is closed, and a body whose client hung up is not parsed (V21-1); a body
// over its route's bound on values is refused before it is parsed (V21-2).
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { errorCodes, type FastifyInstance, type FastifyReply } from 'fastify';
import type { BodyBudget, Hold } from './body-budget.js';
import { requestClient } from './clients.js';
import { JsonLane, type LaneBody, overBound, type Parsed } from './json-lane.js';
import { ServeError } from './options.js';

/** Bodies up to this size are parsed on the event loop (a millisecond or so); larger ones in the parser thread. */
export const INLINE_PARSE_BYTES = 64 * 1024;

/** Whether a request carries a body: a chunked one, or a content-length above 0. */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  return (
    headers['transfer-encoding'] !== undefined ||
    (headers['content-length'] !== undefined && headers['content-length'] !== '0')
  );
}

/** The values a route's body may parse into: its `config.bodyValues`, else the service's default. */
function valuesOf(request: { routeOptions: { config: unknown } }, fallback: number): number {
  return (request.routeOptions.config as { bodyValues?: number } | undefined)?.bodyValues ?? fallback;
}

/** The 413 of a body over its route's bound on values. */
function tooComplex(maxValues: number): ServeError {
  return new ServeError(
    413,
    'E_BODY_TOO_COMPLEX',
    `the request body holds more than the ${maxValues} JSON values this endpoint takes`,
  );
}

const clientGone = () => new ServeError(400, 'E_BAD_REQUEST', 'the client closed its connection');

/** A body in intake: its hold is released once its connection is closed and its parse (if any) has ended. */
interface Intake {
  hold: Hold;
  gone: boolean;
  /** The body's parse in the parser thread, while it waits or runs. */
  body: LaneBody | null;
}

/** The answer to a refused body also closes its connection: the rest of the body is never read. */
function refuse(reply: FastifyReply, error: ServeError): ServeError {
  if (!reply.raw.headersSent) reply.header('connection', 'close');
  return error;
}

/**
 * Charges every request body to its client (`budget`), drops one still arriving `deadlineMs` after its headers (408),
 * and parses JSON bodies past INLINE_PARSE_BYTES in a parser thread, each under its route's bound on values
 * (`bodyValues` by default); returns the lane, to close with the server.
 */
export function registerBodyIntake(
  app: FastifyInstance,
  budget: BodyBudget,
  deadlineMs: number,
  bodyValues: number,
): JsonLane {
  const intakes = new WeakMap<IncomingMessage, Intake>();
  app.addHook('preParsing', async (request, reply, payload) => {
    if (!hasBody(request.headers)) return payload;
    const declared = Number(request.headers['content-length']);
    const limit = request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? Number.POSITIVE_INFINITY;
    const tooLarge = () =>
      refuse(reply, new ServeError(413, 'E_BODY_TOO_LARGE', `the request body is over the limit of ${limit} bytes`));
    if (declared > limit) throw tooLarge(); // refused unread
    let hold: Hold;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        if (received > limit) return done(tooLarge());
        try {
          if (received > hold.bytes) hold.grow(received - hold.bytes);
          hold.moved(chunk.length); // a body arriving is not reclaimed while it keeps coming (V25-1, V26-3)
        } catch (error) {
          return done(refuse(reply, error as ServeError));
        }
        done(null, chunk);
      },
      flush(done) {
        clearTimeout(timer);
        hold.arrived();
        done();
      },
    });
    let received = 0;
    const drop = (error: ServeError) => {
      payload.unpipe(counted);
      counted.destroy(refuse(reply, error));
    };
    try {
      hold = budget.reserve(requestClient(request).principal, Number.isSafeInteger(declared) ? declared : 0, { drop });
      hold.dueBy(Date.now() + deadlineMs); // what it reserved must come by its deadline, or it may be reclaimed (V27-1)
    } catch (error) {
      throw refuse(reply, error as ServeError);
    }
    const timer = setTimeout(() => {
      if (!hold.arriving) return;
      budget.release(hold);
      drop(
        new ServeError(
          408,
          'E_BODY_TIMEOUT',
          `the request body did not arrive within ${deadlineMs} ms of its headers (${received} bytes came)`,
        ),
      );
    }, deadlineMs);
    timer.unref();
    const intake: Intake = { hold, gone: false, body: null };
    intakes.set(request.raw, intake);
    reply.raw.once('close', () => {
      clearTimeout(timer);
      intake.gone = true;
      if (intake.body)
        intake.body.drop(); // a waiting parse is cancelled; the hold ends with it
      else hold.release();
    });
    return payload.pipe(counted);
  });

  const lane = new JsonLane();
  const inline = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // Small bodies are gathered and parsed here; past INLINE_PARSE_BYTES a body's chunks go to the parser thread as they
  // come (its limit and deadline are the counting stream's, above).
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let body: LaneBody | null = null;
    let ended = false;
    payload.on('data', (chunk: Buffer) => {
      if (body) return body.write(chunk);
      chunks.push(chunk);
      size += chunk.length;
      if (size <= INLINE_PARSE_BYTES) return;
      body = lane.open(requestClient(request).principal);
      for (const c of chunks.splice(0)) body.write(c);
    });
    const maxValues = valuesOf(request, bodyValues);
    payload.once('end', () => {
      ended = true;
      if (!body) {
        const bytes = Buffer.concat(chunks, size);
        return overBound(bytes, maxValues)
          ? done(tooComplex(maxValues))
          : inline(request, bytes.toString('utf8'), done);
      }
      const intake = intakes.get(request.raw);
      if (intake?.gone) {
        body.drop();
        return done(clientGone());
      }
      if (intake) intake.body = body;
      // The parse's end releases the hold of a body whose client is gone; its value then goes nowhere.
      const settled = (answer: Parsed | null, error?: Error) => {
        if (intake) intake.body = null;
        if (intake?.gone) {
          intake.hold.release();
          return done(clientGone());
        }
        if (error || !answer) return done(error ?? null);
        if (answer.over) return done(tooComplex(maxValues));
        return answer.invalid ? done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY()) : done(null, answer.value);
      };
      body.parse(maxValues).then(
        (answer) => settled(answer),
        (error: Error) => settled(null, error),
      );
    });
    payload.once('error', (error: Error & { statusCode?: number }) => {
      body?.drop();
      if (!(error instanceof ServeError) && !(Number(error.statusCode) >= 400)) error.statusCode = 400;
      done(error);
    });
    payload.once('close', () => {
      if (!ended) body?.drop();
    });
  });
  return lane;
}
