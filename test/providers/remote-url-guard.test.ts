import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkRemoteNavigation, resolvesToPrivate, type Resolver } from '../../src/providers/index.js';

/** A DNS stand-in (no resolver on this machine reaches the internet): name → answers. */
const dns =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const answers = table[host];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answers;
  };

const zone = dns({
  'public.example': ['93.184.215.14'],
  'rebind.example': ['93.184.215.14', '10.0.0.5'],
  'v6private.example': ['fd00::1'],
  'meta.example': ['169.254.169.254'],
});
const blocked = (code: string) => ({ code });

describe('navigation policy of remote browsers', () => {
  it('resolves localhost through the system resolver as private', async () => {
    assert.equal(await resolvesToPrivate('localhost'), true);
  });

  it('counts a name as private when any of its answers is private', async () => {
    assert.equal(await resolvesToPrivate('rebind.example', zone), true);
    assert.equal(await resolvesToPrivate('v6private.example', zone), true);
    assert.equal(await resolvesToPrivate('public.example', zone), false);
  });

  it('treats a name that does not resolve as not private', async () => {
    assert.equal(await resolvesToPrivate('nxdomain.example', zone), false);
  });

  it('allows public addresses and about:blank', async () => {
    assert.equal(
      (await checkRemoteNavigation('https://public.example/x', { allowPrivateUrls: false, resolve: zone }))
        .hostname,
      'public.example',
    );
    assert.equal(
      (await checkRemoteNavigation('about:blank', { allowPrivateUrls: false, resolve: zone })).href,
      'about:blank',
    );
  });

  it('blocks private literals and internal names with private_url_blocked', async () => {
    for (const url of [
      'http://127.0.0.1:8642/',
      'http://192.168.1.1/',
      'http://printer.local/',
      'http://db.internal/',
      'http://[::1]/',
    ]) {
      await assert.rejects(
        checkRemoteNavigation(url, { allowPrivateUrls: false, resolve: zone }),
        blocked('private_url_blocked'),
        url,
      );
    }
  });

  it('blocks a public-looking name that resolves to a private address', async () => {
    await assert.rejects(
      checkRemoteNavigation('https://rebind.example/', { allowPrivateUrls: false, resolve: zone }),
      blocked('private_url_blocked'),
    );
  });

  it('allows private addresses when browser.allow_private_urls is on', async () => {
    await checkRemoteNavigation('http://10.1.2.3/', { allowPrivateUrls: true, resolve: zone });
    await checkRemoteNavigation('https://rebind.example/', { allowPrivateUrls: true, resolve: zone });
  });

  it('refuses cloud metadata always, by literal or by resolution', async () => {
    await assert.rejects(
      checkRemoteNavigation('http://169.254.169.254/', { allowPrivateUrls: true, resolve: zone }),
      blocked('metadata_url_blocked'),
    );
    await assert.rejects(
      checkRemoteNavigation('http://meta.example/', { allowPrivateUrls: true, resolve: zone }),
      blocked('metadata_url_blocked'),
    );
  });

  it('rejects non-web schemes with invalid_url', async () => {
    await assert.rejects(
      checkRemoteNavigation('file:///etc/passwd', { allowPrivateUrls: true, resolve: zone }),
      blocked('invalid_url'),
    );
  });
});
