import { ConfigError } from '@acct/kit';
import { loadWebhookConfig } from './config';

const base = { WEBHOOK_SECRET_KEY: 'k'.repeat(40) };

describe('webhook dispatcher configuration', () => {
  it('keeps the address rule on unless WEBHOOK_ALLOW_PRIVATE_URLS says true', () => {
    expect(loadWebhookConfig(base).allowPrivateUrls).toBe(false);
    expect(loadWebhookConfig({ ...base, WEBHOOK_ALLOW_PRIVATE_URLS: '' }).allowPrivateUrls).toBe(false);
    expect(loadWebhookConfig({ ...base, WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }).allowPrivateUrls).toBe(false);
    expect(loadWebhookConfig({ ...base, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }).allowPrivateUrls).toBe(true);
  });

  it.each(['TRUE', 'on', 'y', ' true', 'enabled'])('stops on WEBHOOK_ALLOW_PRIVATE_URLS=%p, naming the variable', (raw) => {
    expect(() => loadWebhookConfig({ ...base, WEBHOOK_ALLOW_PRIVATE_URLS: raw })).toThrow(ConfigError);
    expect(() => loadWebhookConfig({ ...base, WEBHOOK_ALLOW_PRIVATE_URLS: raw })).toThrow(/WEBHOOK_ALLOW_PRIVATE_URLS: must be true or false/);
  });
});
