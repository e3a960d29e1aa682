import dns from 'node:dns';
import net from 'node:net';
import type { Environment } from '@acct/contracts';

/** Addresses a live-mode endpoint must never reach: private, loopback, link-local, and the like. */
const BLOCKED = new net.BlockList();
for (const [a, p] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(a, p, 'ipv4');
for (const [a, p] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
] as const)
  BLOCKED.addSubnet(a, p, 'ipv6');

/** The IPv4 address inside an IPv4-mapped, -compatible or NAT64 IPv6 address. */
function embeddedV4(address: string): string | null {
  const m = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return m[1]!;
  const h = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (h) {
    const hi = parseInt(h[1]!, 16);
    const lo = parseInt(h[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedV4(address);
    if (v4) return BLOCKED.check(v4, 'ipv4');
    return BLOCKED.check(address, 'ipv6');
  }
  return true; // not an address at all
}

export type Resolver = (host: string) => Promise<string[]>;
export const systemResolver: Resolver = async (host) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Why a URL is refused for an endpoint of this environment, or null when it is acceptable. */
export async function urlProblem(raw: string, environment: Environment, resolve: Resolver = systemResolver): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (environment === 'test') return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'must use https or http';
  if (url.protocol !== 'https:') return 'must use https in live mode';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      return `host ${host} does not resolve`;
    }
  }
  if (addresses.length === 0) return `host ${host} does not resolve`;
  const bad = addresses.find(isForbiddenAddress);
  return bad ? `resolves to a private, loopback or link-local address (${bad})` : null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A dns.lookup for the connections of live-mode deliveries: the address actually connected to is
 * checked, so a name that re-resolves to a private address after the URL check (DNS rebinding) is
 * refused. `resolve` replaces the system lookup (tests inject a name whose answer changes).
 */
export function guardedLookupWith(resolve?: Resolver) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    const answer = (err: NodeJS.ErrnoException | null, list: dns.LookupAddress[]): void => {
      if (err) return callback(err, []);
      const bad = list.find((a) => isForbiddenAddress(a.address));
      if (bad || list.length === 0) {
        const e: NodeJS.ErrnoException = new Error(`refused: ${hostname} resolves to a forbidden address${bad ? ` (${bad.address})` : ''}`);
        e.code = 'EFORBIDDENADDRESS';
        return callback(e, []);
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    };
    if (!resolve) return dns.lookup(hostname, { ...options, all: true }, answer);
    resolve(hostname).then(
      (addresses) =>
        answer(
          null,
          addresses.map((address) => ({ address, family: net.isIP(address) || 4 })),
        ),
      (err: NodeJS.ErrnoException) => answer(err, []),
    );
  };
}

export const guardedLookup = guardedLookupWith();
