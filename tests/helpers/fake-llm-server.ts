// A scriptable HTTP server on 127.0.0.1 for the fake LLM providers: reads one JSON request, records it,
// and plays the next scripted reply (good output, an error status, a reset socket, or a hang).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeScriptPlayer, type FakeReply, type FakeScript } from '../../agents/llm/fake.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface Rendered {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Turns a scripted reply into this protocol's response; `n` numbers the request for ids. */
export type Renderer = (reply: Exclude<FakeReply, { kind: 'reset' | 'hang' }>, body: any, n: number) => Rendered;

export interface FakeServerOptions {
  script?: FakeScript<any>;
  /** Added before every reply: a fixed per-call latency for throughput benchmarks. */
  latencyMs?: number;
}

export interface FakeServer {
  /** http://127.0.0.1:PORT (no path). */
  origin: string;
  readonly requests: RecordedRequest[];
  push(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

export async function startFakeServer(
  route: string,
  render: Renderer,
  options: FakeServerOptions = {},
): Promise<FakeServer> {
  const player = new FakeScriptPlayer<any>(options.script ?? []);
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      } catch {
        body = undefined;
      }
      const path = (req.url ?? '').split('?')[0] ?? '';
      requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      if (req.method !== 'POST' || path !== route)
        return send(res, { status: 404, body: { error: { message: `no route ${req.method} ${path}` } } });
      const next = player.next(body);
      const play = () => {
        if (next.kind === 'reset') return req.socket.destroy();
        if (next.kind === 'hang') return; // closeAllConnections() ends it when the server closes
        send(res, render(next, body, requests.length));
      };
      if (options.latencyMs) setTimeout(play, options.latencyMs);
      else play();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    push: (...replies) => player.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, rendered: Rendered): void {
  if (res.destroyed) return;
  res.writeHead(rendered.status, { 'content-type': 'application/json', ...rendered.headers });
  res.end(JSON.stringify(rendered.body));
}
