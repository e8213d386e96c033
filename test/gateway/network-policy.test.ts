import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NetworkPolicy, type Resolver } from '../../src/gateway/backends/network-policy.js';

/** A DNS stand-in (no resolver on this machine reaches the internet): name → answers. */
function zone(table: Record<string, string[]>): Resolver & { lookups: string[] } {
  const lookups: string[] = [];
  const resolve = async (host: string) => {
    lookups.push(host);
    const answers = table[host];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answers;
  };
  return Object.assign(resolve, { lookups });
}

const names = {
  'public.example': ['93.184.215.14'],
  'rebind.example': ['93.184.215.14', '10.0.0.5'],
  'v6private.example': ['fd00::1'],
  'meta.example': ['169.254.169.254'],
  'staging.example': ['10.1.2.3'],
};

const remote = (overrides: Partial<ConstructorParameters<typeof NetworkPolicy>[0]> = {}) =>
  new NetworkPolicy({
    remote: true,
    allowPrivateUrls: false,
    allowedPrivateHosts: [],
    resolve: zone(names),
    ...overrides,
  });
const local = () =>
  new NetworkPolicy({
    remote: false,
    allowPrivateUrls: false,
    allowedPrivateHosts: [],
    resolve: zone(names),
  });

const verdict = async (policy: NetworkPolicy, host: string) => {
  const judged = await policy.judge(host);
  return judged.allowed ? 'allowed' : judged.code;
};

describe('where a remote browser may go', () => {
  it('allows a public name and a public address', async () => {
    assert.equal(await verdict(remote(), 'public.example'), 'allowed');
    assert.equal(await verdict(remote(), '93.184.215.14'), 'allowed');
  });

  it('refuses private, loopback, link-local, CGNAT and unique-local addresses and internal names', async () => {
    for (const host of [
      '10.0.0.1',
      '127.0.0.3',
      '169.254.1.1',
      '100.64.0.1',
      'fd12::1',
      '::1',
      'localhost',
      'db.internal',
      'intranet',
    ]) {
      assert.equal(await verdict(remote(), host), 'private_url_blocked', host);
    }
  });

  it('refuses a name when any address it resolves to is private', async () => {
    assert.equal(await verdict(remote(), 'rebind.example'), 'private_url_blocked');
    assert.equal(await verdict(remote(), 'v6private.example'), 'private_url_blocked');
  });

  it('refuses a name the gateway cannot resolve', async () => {
    assert.equal(await verdict(remote(), 'nxdomain.example'), 'private_url_blocked');
  });

  it('allows private hosts with browser.allow_private_urls, or the hosts browser.allowed_private_hosts lists', async () => {
    const open = remote({ allowPrivateUrls: true });
    assert.equal(await verdict(open, '10.0.0.1'), 'allowed');
    assert.equal(await verdict(open, 'nxdomain.example'), 'allowed');
    const listed = remote({ allowedPrivateHosts: ['Staging.Example', '[FD12::1]', '127.0.0.2'] });
    assert.equal(await verdict(listed, 'staging.example'), 'allowed');
    assert.equal(await verdict(listed, 'fd12::1'), 'allowed');
    assert.equal(await verdict(listed, '127.0.0.2'), 'allowed');
    assert.equal(await verdict(listed, '127.0.0.3'), 'private_url_blocked');
  });

  it('refuses cloud metadata by address, by name and by what a name resolves to, even when private hosts are allowed', async () => {
    const open = remote({ allowPrivateUrls: true, allowedPrivateHosts: ['meta.example'] });
    for (const host of [
      '169.254.169.254',
      'fd00:ec2::254',
      '::ffff:a9fe:a9fe',
      'metadata.google.internal',
      'meta.example',
    ]) {
      assert.equal(await verdict(open, host), 'metadata_url_blocked', host);
    }
  });

  it('answers a host it judged at once, and resolves a name once for requests that wait together', async () => {
    const resolve = zone(names);
    const policy = remote({ resolve });
    const [first, second] = [policy.judge('public.example'), policy.judge('public.example')];
    assert.ok(first instanceof Promise);
    await Promise.all([first, second]);
    assert.deepEqual(policy.judge('public.example'), { allowed: true });
    assert.deepEqual(resolve.lookups, ['public.example']);
  });
});

describe('where the local browser may go', () => {
  it('allows private addresses and names it cannot resolve', async () => {
    assert.equal(await verdict(local(), '127.0.0.1'), 'allowed');
    assert.equal(await verdict(local(), 'staging.example'), 'allowed');
    assert.equal(await verdict(local(), 'site-a.tabgate.test'), 'allowed');
  });

  it('refuses cloud metadata by address, by name and by what a name resolves to', async () => {
    for (const host of ['169.254.169.254', 'metadata.google.internal', 'meta.example']) {
      assert.equal(await verdict(local(), host), 'metadata_url_blocked', host);
    }
  });
});
