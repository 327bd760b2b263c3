// One JSON request to a service over a fresh connection from a chosen source address (127.0.0.x: all of them
// are one client, "loopback", to the reward service; client tokens tell clients apart), with its status, parsed body
// and retry-after.
import { request as httpRequest } from 'node:http';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export function send(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  opts: { from?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Json; retryAfter?: string }> {
  const url = new URL(base + path);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        agent: false,
        ...(opts.from ? { localAddress: opts.from } : {}),
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text ? JSON.parse(text) : null,
            ...(res.headers['retry-after'] ? { retryAfter: String(res.headers['retry-after']) } : {}),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
