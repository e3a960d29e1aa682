import { type Resolver, type UrlRules, addressRange, checkUrl, isForbiddenAddress } from './ssrf';

/** Why checkUrl refuses a URL, or null when it takes it. */
async function urlProblem(raw: string, rules: UrlRules): Promise<string | null> {
  const r = await checkUrl(raw, rules);
  return r.ok ? null : r.problem;
}

const publicDns: Resolver = async () => ['93.184.216.34'];
const privateDns: Resolver = async () => ['10.0.0.7'];
const strict = (environment: 'test' | 'live', resolve: Resolver = publicDns): UrlRules => ({ environment, allowPrivate: false, resolve });

describe('SSRF guard: the address classifier', () => {
  /** The range an address falls in, and whether the guard refuses it. */
  const classifies = (forbidden: boolean) => (address: string, range: string) => {
    expect(addressRange(address)).toBe(range);
    expect(isForbiddenAddress(address)).toBe(forbidden);
  };

  it.each([
    // IPv4 ranges
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.10', 'reserved'], // documentation (TEST-NET-1)
    ['198.51.100.1', 'reserved'], // documentation
    ['203.0.113.1', 'reserved'], // documentation
    ['198.18.0.1', 'reserved'], // benchmarking
    ['192.88.99.1', 'reserved'], // 6to4 relay anycast
    // IPv6 ranges
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['FE80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'], // documentation
    ['2001:2::1', 'benchmarking'],
    ['100::1', 'discard'],
    // IPv4-mapped, also written in hex and upper case
    ['::ffff:127.0.0.1', 'ipv4Mapped loopback'],
    ['::ffff:7f00:1', 'ipv4Mapped loopback'],
    ['::FFFF:7F00:1', 'ipv4Mapped loopback'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'ipv4Mapped linkLocal'],
    ['::ffff:10.0.0.1', 'ipv4Mapped private'],
    // IPv4-translated (RFC 6145)
    ['::ffff:0:7f00:1', 'rfc6145 loopback'],
    // IPv4-compatible: ipaddr.js alone calls these unicast
    ['::127.0.0.1', 'ipv4Compatible loopback'],
    ['::7f00:1', 'ipv4Compatible loopback'],
    ['0::7f00:1', 'ipv4Compatible loopback'],
    ['0:0:0:0:0:0:7f00:1', 'ipv4Compatible loopback'],
    ['::a9fe:a9fe', 'ipv4Compatible linkLocal'],
    ['::10.0.0.1', 'ipv4Compatible private'],
    ['::a00:1', 'ipv4Compatible private'],
    ['::0.0.0.2', 'ipv4Compatible unspecified'],
    // NAT64: the well-known prefix carries the address; the local-use /48 is refused whole
    ['64:ff9b::10.0.0.1', 'rfc6052 private'],
    ['64:ff9b::a00:1', 'rfc6052 private'],
    ['64:ff9b::7f00:1', 'rfc6052 loopback'],
    ['64:ff9b:1::a00:1', 'rfc6052'],
    ['64:ff9b:1::808:808', 'rfc6052'],
    // 6to4: the IPv4 address in bits 16–47
    ['2002:7f00:1::', '6to4 loopback'],
    ['2002:a9fe:a9fe::1', '6to4 linkLocal'],
    ['2002:c0a8:101::1', '6to4 private'],
    // Teredo: refused whole, whatever its (obfuscated) client address
    ['2001::1', 'teredo'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'teredo'],
    // zone ids, and what is not an address
    ['fe80::1%eth0', 'zoned'],
    ['2606:4700::1111%eth0', 'zoned'],
    ['example.com', 'invalid'],
    ['', 'invalid'],
    ['127.0.0.1.', 'invalid'],
    ['[::1]', 'invalid'],
    // odd IPv4 spellings (the URL parser normalises these in hosts; the classifier reads them too)
    ['2130706433', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0177.0.0.1', 'loopback'],
  ])('refuses %s (%s)', classifies(true));

  it.each([
    ['93.184.216.34', 'unicast'],
    ['8.8.8.8', 'unicast'],
    ['172.32.0.1', 'unicast'],
    ['100.128.0.1', 'unicast'],
    ['2606:4700::1111', 'unicast'],
    ['2a00:1450:4001:80b::200e', 'unicast'],
    ['::ffff:8.8.8.8', 'ipv4Mapped unicast'],
    ['::8.8.8.8', 'ipv4Compatible unicast'],
    ['64:ff9b::808:808', 'rfc6052 unicast'],
    ['2002:808:808::1', '6to4 unicast'],
  ])('accepts %s (%s)', classifies(false));
});

describe('SSRF guard: endpoint URLs', () => {
  it('wants https in live mode, accepts http in test mode, and nothing else', async () => {
    expect(await urlProblem('http://example.com/h', strict('live'))).toMatch(/https in live mode/);
    expect(await urlProblem('https://example.com/h', strict('live'))).toBeNull();
    expect(await urlProblem('http://example.com/h', strict('test'))).toBeNull();
    expect(await urlProblem('ftp://example.com/', strict('test'))).toMatch(/https or http/);
    expect(await urlProblem('not a url', strict('live'))).toMatch(/absolute URL/);
    expect(await urlProblem('http://[fe80::1%25eth0]/h', strict('test'))).toMatch(/absolute URL/); // zone ids are not URL hosts
  });

  // Every spelling of a forbidden host, in both environments (test keys too), with the rule on.
  const forbidden = [
    'https://127.0.0.1/h',
    'https://127.1/h',
    'https://2130706433/h',
    'https://0x7f.1/h',
    'https://0x7f000001/h',
    'https://0177.0.0.1/h',
    'https://%31%32%37.0.0.1/h',
    'https://127.0.0.1./h',
    'https://0/h',
    'https://[::1]/h',
    'https://[0:0:0:0:0:0:0:1]/h',
    'https://[::]/h',
    'https://10.0.0.1/h',
    'https://172.16.5.4/h',
    'https://192.168.0.1/h',
    'https://100.64.0.1/h',
    'https://169.254.169.254/latest/meta-data',
    'https://224.0.0.1/h',
    'https://255.255.255.255/h',
    'https://192.0.2.10/h',
    'https://[fe80::1]/h',
    'https://[fd00::1]/h',
    'https://[ff02::1]/h',
    'https://[::ffff:10.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'HTTPS://[::FFFF:7F00:1]/',
    'https://[::a9fe:a9fe]/h',
    'https://[::127.0.0.1]/h',
    'https://[::10.0.0.1]/h',
    'https://[0::7f00:1]/h',
    'https://[::ffff:0:7f00:1]/h',
    'https://[64:ff9b::a9fe:a9fe]/h',
    'https://[64:ff9b::10.0.0.1]/h',
    'https://[64:ff9b:1::808:808]/h',
    'https://[2002:a9fe:a9fe::1]/h',
    'https://[2002:7f00:1::]/h',
    'https://[2001::1]/h',
    'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/h',
  ];
  it.each(forbidden.flatMap((u) => [[u, 'live'] as const, [u.replace(/^https/i, 'http'), 'test'] as const]))('refuses %s in %s mode', async (url, env) => {
    expect(await urlProblem(url, strict(env))).toMatch(/resolves to an address that is not public/);
  });

  it('refuses a hostname resolving to a forbidden address, in both modes', async () => {
    for (const env of ['test', 'live'] as const) {
      expect(await urlProblem('https://internal.example.com/h', strict(env, privateDns))).toMatch(/10\.0\.0\.7: private/);
      expect(
        await urlProblem(
          'https://mixed.example.com/h',
          strict(env, async () => ['93.184.216.34', '::ffff:127.0.0.1']),
        ),
      ).toMatch(/::ffff:127\.0\.0\.1: ipv4Mapped loopback/);
      expect(
        await urlProblem(
          'https://nowhere.example.com/h',
          strict(env, async () => []),
        ),
      ).toMatch(/does not resolve/);
      expect(
        await urlProblem(
          'https://nx.example.com/h',
          strict(env, async () => {
            throw new Error('ENOTFOUND');
          }),
        ),
      ).toMatch(/does not resolve/);
      // The system resolver: localhost (with or without the trailing dot, any case) is loopback.
      for (const host of ['localhost', 'LOCALHOST', 'localhost.'])
        expect(await urlProblem(`https://${host}/h`, { environment: env, allowPrivate: false })).toMatch(/not public|does not resolve/);
    }
  });

  it('refuses credentials and returns the WHATWG-normalised href it checked', async () => {
    expect(await urlProblem('http://a@example.com/x', strict('test'))).toMatch(/credentials/);
    expect(await urlProblem('https://a:b@example.com/x', strict('live'))).toMatch(/credentials/);
    expect(await urlProblem('http://a@10.0.0.1/x', { environment: 'test', allowPrivate: true })).toMatch(/credentials/);
    expect(await checkUrl('HTTPS://Example.COM:443/a/../b?q#f', strict('live'))).toEqual({ ok: true, href: 'https://example.com/b?q#f' });
    expect(await checkUrl('http:/127.0.0.1/x', { environment: 'test', allowPrivate: true })).toEqual({ ok: true, href: 'http://127.0.0.1/x' });
    expect(await urlProblem('http:/127.0.0.1/x', strict('test'))).toMatch(/127\.0\.0\.1: loopback/);
    // A backslash ends the authority of an http(s) URL: the host is `a`, `@10.0.0.1/x` is the path.
    expect(await checkUrl('http://a\\@10.0.0.1/x', { environment: 'test', allowPrivate: true })).toEqual({ ok: true, href: 'http://a/@10.0.0.1/x' });
    const seen: string[] = [];
    const spy = async (h: string) => (seen.push(h), ['93.184.216.34']);
    expect(await urlProblem('http://a\\@10.0.0.1/x', strict('test', spy))).toBeNull();
    expect(seen).toEqual(['a']);
    expect(await urlProblem(`https://example.com/${'é'.repeat(400)}`, strict('live'))).toMatch(/longer than 2048/); // 2 bytes → 6 characters each
  });

  it('with WEBHOOK_ALLOW_PRIVATE_URLS, test mode reaches any host over http or https, and live mode still wants https', async () => {
    const allow = (environment: 'test' | 'live'): UrlRules => ({ environment, allowPrivate: true, resolve: privateDns });
    expect(await urlProblem('http://127.0.0.1:3000/h', allow('test'))).toBeNull();
    expect(await urlProblem('http://[::1]:3000/h', allow('test'))).toBeNull();
    expect(await urlProblem('https://169.254.169.254/', allow('test'))).toBeNull();
    expect(await urlProblem('https://internal.example.com/h', allow('live'))).toBeNull();
    expect(await urlProblem('http://127.0.0.1:3000/h', allow('live'))).toMatch(/https in live mode/);
    expect(await urlProblem('ftp://127.0.0.1/', allow('test'))).toMatch(/https or http/);
  });
});
