// A connection's address as the unit of a client: what one client cannot multiply by choosing its source
// address. Every loopback address (127.0.0.0/8, ::1) is one client, an IPv4-mapped IPv6 address is its IPv4
// address, and an IPv6 address counts by its /64 (the block one host or one customer holds).
import { isIPv4, isIPv6 } from 'node:net';

/** The one client every loopback address is: on the default host (127.0.0.1), every local trainer. */
export const LOOPBACK = 'loopback';

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
 * The client an address is: 'loopback' for every loopback address, an IPv4 address as it is (also when it
 * arrives IPv4-mapped, ::ffff:a.b.c.d), an IPv6 address as its /64 ('2001:db8:1:2::/64'); 'unknown' when none.
 */
export function clientAddress(raw: string | undefined): string {
  if (!raw) return 'unknown';
  const address = raw.toLowerCase().replace(/%.*$/, ''); // a zone index names an interface, not a host
  if (isIPv4(address)) return address.startsWith('127.') ? LOOPBACK : address;
  const groups = groupsOf(address);
  if (!groups) return address;
  const zeros = (n: number) => groups.slice(0, n).every((g) => g === 0);
  const [g6, g7] = [groups[6] as number, groups[7] as number];
  if (zeros(5) && groups[5] === 0xffff) return clientAddress(`${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`);
  if (zeros(7) && groups[7] === 1) return LOOPBACK;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
