// Which Host headers a local server answers (the reward service, the dashboard): a defence against DNS
// rebinding, where a web page whose own name the attacker re-points at 127.0.0.1 reads the service as if it
// were its own origin (a same-origin GET carries no Origin header). Browsers always send the name they
// resolved; only names that cannot be re-pointed (IP literals, localhost) or that the operator named pass.
import { isIP } from 'node:net';
import { UsageError } from './errors.js';

/**
 * Host-name patterns the operator allowed (--allow-host): a name, `.example.org` for it and its subdomains, or `*` for
 * any.
 */
export function allowedHosts(list: readonly string[] = []): ReadonlySet<string> {
  return new Set(
    list.map((text) => {
      const name = text.trim().toLowerCase().replace(/\.$/, '');
      if (name === '*' || /^\.?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(name))
        return name;
      throw new UsageError(
        `--allow-host takes a host name such as trainer-7.cluster, .cluster.example (it and its subdomains) ` +
          `or *, got ${JSON.stringify(text.slice(0, 120))}`,
      );
    }),
  );
}

/** Whether the server listens only on the loopback interface (127.0.0.0/8, ::1, localhost). */
export function isLoopbackBind(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:127\.\d+\.\d+\.\d+$/.test(h);
}

/** The name part of a Host header (no port, no brackets, lower case, no final dot); null when it does not parse. */
export function hostName(header: string): string | null {
  const text = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) return bracketed[1] as string;
  const plain = /^([^:\s/@[\]]+)(?::\d{1,5})?$/.exec(text);
  return plain ? (plain[1] as string).replace(/\.$/, '') : null;
}

/**
 * Why a request naming `header` as its Host is refused, or null when it may be served. A server bound to
 * loopback answers only IP literals, localhost names and the allowed names; one bound to another interface
 * (the operator exposed it on purpose) answers any name unless the operator listed the names it answers to.
 */
export function hostRefusal(
  header: string | string[] | undefined,
  bindHost: string,
  allowed: ReadonlySet<string>,
): string | null {
  if (header === undefined) return null; // HTTP/1.0 clients and raw sockets: no browser sends a request without Host
  const name = typeof header === 'string' ? hostName(header) : null;
  if (name !== null) {
    if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')) return null;
    if (
      allowed.has('*') ||
      allowed.has(name) ||
      [...allowed].some((a) => a.startsWith('.') && (name.endsWith(a) || name === a.slice(1)))
    )
      return null;
    if (!isLoopbackBind(bindHost) && allowed.size === 0) return null;
  }
  const shown = JSON.stringify((Array.isArray(header) ? header.join(', ') : header).slice(0, 120));
  return (
    `the Host header ${shown} names this server by a name it does not answer to (a defence against DNS ` +
    `rebinding): use an IP address or localhost, or start it with --allow-host NAME`
  );
}
