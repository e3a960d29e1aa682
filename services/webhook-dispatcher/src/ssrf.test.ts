import { isForbiddenAddress, urlProblem } from './ssrf';

describe('SSRF guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::a00:1',
  ])('refuses %s', (a) => expect(isForbiddenAddress(a)).toBe(true));
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])('accepts %s', (a) => expect(isForbiddenAddress(a)).toBe(false));

  const publicDns = async () => ['93.184.216.34'];
  const privateDns = async () => ['10.0.0.7'];

  it('wants https in live mode and allows http://127.0.0.1 in test mode', async () => {
    expect(await urlProblem('http://example.com/h', 'live', publicDns)).toMatch(/https/);
    expect(await urlProblem('https://example.com/h', 'live', publicDns)).toBeNull();
    expect(await urlProblem('http://127.0.0.1:3000/h', 'test')).toBeNull();
    expect(await urlProblem('ftp://example.com/', 'test')).toMatch(/https or http/);
    expect(await urlProblem('not a url', 'live')).toMatch(/absolute URL/);
  });

  it.each(['https://127.0.0.1/h', 'https://[::1]/h', 'https://10.0.0.1/h', 'https://169.254.169.254/latest/meta-data', 'https://[::ffff:10.0.0.1]/'])(
    'refuses %s in live mode',
    async (u) => expect(await urlProblem(u, 'live', publicDns)).toMatch(/private, loopback or link-local/),
  );

  it('refuses a hostname resolving to a private address in live mode', async () => {
    expect(await urlProblem('https://internal.example.com/h', 'live', privateDns)).toMatch(/10\.0\.0\.7/);
    expect(await urlProblem('https://localhost/h', 'live')).toMatch(/private, loopback or link-local/);
  });
});
