import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { type Environment, webhook_url_length_max } from '@acct/contracts';

/**
 * What an address is, by ipaddr.js's range classification: 'unicast' for an ordinary public
 * address, else the range's name ('loopback', 'private', 'linkLocal', 'carrierGradeNat', 'reserved',
 * 'uniqueLocal', …). An IPv6 form that carries an IPv4 address is named after that address too
 * ('ipv4Mapped loopback') and allowed only when that IPv4 address is unicast:
 * - IPv4-mapped ::ffff:a.b.c.d and IPv4-translated ::ffff:0:a.b.c.d (RFC 6145);
 * - IPv4-compatible ::a.b.c.d (ipaddr.js calls these 'unicast': the first 96 bits are zero);
 * - NAT64 64:ff9b::a.b.c.d (RFC 6052 well-known prefix, the last 32 bits);
 * - 6to4 2002:AABB:CCDD::/48 (bits 16–47).
 * The local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215; where the IPv4 address sits depends on the
 * operator's prefix length) and Teredo 2001::/32 (its client address is obfuscated and it tunnels
 * through a server of its own) are refused whatever they carry, as are zone ids and anything that
 * is not an address.
 */
export function addressRange(address: string): string {
  if (address.includes('%')) return 'zoned';
  if (!ipaddr.isValid(address)) return 'invalid';
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return ip.range();
  // ipaddr.js reads the IPv4-compatible ::a.b.c.d as the IPv4-mapped ::ffff:a.b.c.d: the WHATWG
  // host parser writes it in hex (::a.b.c.d is ::xxxx:yyyy) before ipaddr.js classifies it.
  let v6: ipaddr.IPv6;
  try {
    v6 = ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
  } catch {
    return 'invalid';
  }
  const range: string = v6.range();
  const bytes = v6.toByteArray();
  const v4 = (from: number): string => (ipaddr.fromByteArray(bytes.slice(from, from + 4)) as ipaddr.IPv4).range();
  switch (range) {
    case 'ipv4Mapped':
      return `${range} ${v6.toIPv4Address().range()}`;
    case 'rfc6145':
      return `${range} ${v4(12)}`;
    case 'rfc6052':
      // The well-known prefix /96 carries the address in its last 32 bits; the local-use /48 is refused.
      return v6.parts[2] === 0 && v6.parts[3] === 0 && v6.parts[4] === 0 && v6.parts[5] === 0 ? `${range} ${v4(12)}` : range;
    case '6to4':
      return `${range} ${v4(2)}`;
    case 'unicast':
      // IPv4-compatible (::/96; :: and ::1 are already 'unspecified' and 'loopback').
      return v6.parts.slice(0, 6).every((p) => p === 0) ? `ipv4Compatible ${v4(12)}` : range;
    default:
      return range;
  }
}

/** An address a delivery must not reach: anything but a public unicast address (IPv4 forms unwrapped). */
export function isForbiddenAddress(address: string): boolean {
  return !/(^| )unicast$/.test(addressRange(address));
}

export type Resolver = (host: string) => Promise<string[]>;
const systemResolver: Resolver = async (host) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface UrlRules {
  environment: Environment;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: the operator lifted the address rule (local development). */
  allowPrivate: boolean;
  resolve?: Resolver;
}

type UrlCheck = { ok: true; href: string } | { ok: false; problem: string };

/**
 * Checks an endpoint URL for an endpoint of this environment. The URL is WHATWG-normalised first
 * (`new URL(raw).href`: `http:/127.0.0.1/x` is `http://127.0.0.1/x`, `http://2130706433/` is
 * `http://127.0.0.1/`); that href is what the rules apply to, what is stored and what is sent to.
 * Live mode wants https; test mode also accepts http. Unless `allowPrivate`, the host must be, or
 * resolve only to, public unicast addresses.
 */
export async function checkUrl(raw: string, rules: UrlRules): Promise<UrlCheck> {
  const no = (problem: string): UrlCheck => ({ ok: false, problem });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return no('is not an absolute URL');
  }
  if (url.username || url.password) return no('must not carry credentials');
  if (url.href.length > webhook_url_length_max) return no(`is longer than ${webhook_url_length_max} characters once normalised`);
  if (rules.environment === 'live' ? url.protocol !== 'https:' : url.protocol !== 'https:' && url.protocol !== 'http:')
    return no(rules.environment === 'live' ? 'must use https in live mode' : 'must use https or http');
  if (!rules.allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    if (net.isIP(host)) addresses = [host];
    else {
      try {
        addresses = await (rules.resolve ?? systemResolver)(host);
      } catch {
        return no(`host ${host} does not resolve`);
      }
    }
    if (addresses.length === 0) return no(`host ${host} does not resolve`);
    const bad = addresses.find(isForbiddenAddress);
    if (bad) return no(`resolves to an address that is not public (${bad}: ${addressRange(bad)})`);
  }
  return { ok: true, href: url.href };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A dns.lookup for the connections of deliveries: the address actually connected to is checked, so
 * a name that re-resolves to a private address after the URL check (DNS rebinding) is refused.
 * `resolve` replaces the system lookup (tests inject a name whose answer changes). Node does not
 * call a lookup for an IP literal: the sender checks those before the send.
 */
export function guardedLookupWith(resolve?: Resolver) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    const answer = (err: NodeJS.ErrnoException | null, list: dns.LookupAddress[]): void => {
      if (err) return callback(err, []);
      const bad = list.find((a) => isForbiddenAddress(a.address));
      if (bad || list.length === 0) {
        const e: NodeJS.ErrnoException = new Error(`refused: ${hostname} resolves to a forbidden address${bad ? ` (${bad.address}: ${addressRange(bad.address)})` : ''}`);
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
