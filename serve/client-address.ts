// A connection's address as the unit of a client: what one client cannot multiply by choosing its source
// address. Every loopback address (127.0.0.0/8, ::1) and every address of the service's own host is one client, an
// IPv4-mapped IPv6 address is its IPv4 address, and an IPv6 address counts by its /64 (the block one host holds).
import { isIPv4, isIPv6 } from 'node:net';
import { networkInterfaces } from 'node:os';

/** The one client every loopback address is: on the default host (127.0.0.1), every local trainer. */
export const LOOPBACK = 'loopback';

/** How long the host's own addresses are kept before they are read again (interfaces come and go). */
const LOCAL_TTL_MS = 10_000;
let local: { at: number; addresses: ReadonlySet<string> } | null = null;

/**
 * The service's host's own addresses, each exactly (canonical): a process on the host that connects to any of them
 * arrives from it, not from loopback (V22-3), so each is the host's one client. Other addresses of the host's /64s
 * (its neighbours) stay their /64.
 */
export function hostAddresses(now = Date.now()): ReadonlySet<string> {
  if (local && now - local.at < LOCAL_TTL_MS) return local.addresses;
  const addresses = new Set<string>();
  try {
    for (const list of Object.values(networkInterfaces()))
      for (const entry of list ?? []) addresses.add(canonical(entry.address));
  } catch {
    // no interfaces to read (a sandboxed host): loopback alone is the host
  }
  local = { at: now, addresses };
  return addresses;
}

/**
 * An address as one string per address: lower case, without a zone index (it names an interface, not a host), an
 * IPv4-mapped IPv6 address as its IPv4 address, an IPv6 address as its eight groups in full.
 */
function canonical(raw: string): string {
  const address = raw.toLowerCase().replace(/%.*$/, '');
  const groups = isIPv4(address) ? null : groupsOf(address);
  if (!groups) return address;
  const [g6, g7] = [groups[6] as number, groups[7] as number];
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`;
  return groups.map((g) => g.toString(16)).join(':');
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail read as two groups), or null when it is none. */
function groupsOf(address: string): number[] | null {
  if (!isIPv6(address)) return null;
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, null];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === null ? [] : parse(tail);
  const groups =
    tail === null ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/**
 * The client an address is: 'loopback' for every loopback address and every address of the service's own host
 * (hostAddresses), an IPv4 address as it is (also when it arrives IPv4-mapped, ::ffff:a.b.c.d), an IPv6 address as
 * its /64 ('2001:db8:1:2::/64'); 'unknown' when none.
 */
export function clientAddress(raw: string | undefined): string {
  if (!raw) return 'unknown';
  const address = canonical(raw);
  const loopback = (isIPv4(address) && address.startsWith('127.')) || address === '0:0:0:0:0:0:0:1';
  if (loopback || hostAddresses().has(address)) return LOOPBACK;
  const groups = isIPv4(address) ? null : groupsOf(address);
  if (!groups) return address;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
