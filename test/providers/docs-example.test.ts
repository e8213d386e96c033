import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { providerDiscoveryOptions } from '../../src/gateway/backends/providers/index.js';
import { loadConfig } from '../../src/gateway/config/index.js';
import { discoverProviders } from '../../src/providers/index.js';
import { recordingLogger } from './fixtures/context.js';
import { startFakeVendor, type FakeVendor } from './fixtures/fake-vendor.js';
import { tempDir } from '../helpers/temp-dir.js';

// The worked example of docs/providers.md, run as written: if the page rots, this fails.
const DOC = readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'providers.md'),
  'utf8',
);
const block = (lang: string, contains: string) => {
  const found = [...DOC.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].find((m) =>
    m[1]?.includes(contains),
  );
  assert.ok(found?.[1], `no ${lang} block containing ${contains}`);
  return found[1];
};

let home: string;
let vendor: FakeVendor;
before(async () => {
  home = tempDir('docs-example');
  const dir = path.join(home, 'plugins', 'browser', 'acme');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'plugin.yaml'), block('yaml', 'provides_browser_providers'));
  writeFileSync(path.join(dir, 'index.js'), block('js', 'registerBrowserProvider'));
  writeFileSync(path.join(home, 'config.yaml'), block('yaml', 'cloud_provider: acme'));
  vendor = await startFakeVendor((request) => {
    if (request.headers.authorization !== 'Bearer acme-key-123')
      return { status: 401, body: { error: 'bad key' } };
    if (request.method === 'POST' && request.path === '/v1/browsers') {
      if ((request.body as { region?: unknown }).region !== 'eu')
        return { status: 400, body: { error: 'region from config.yaml missing' } };
      return { status: 201, body: { id: 'ac-1', cdpUrl: 'ws://127.0.0.1:9/devtools/browser/x' } };
    }
    if (request.method === 'DELETE' && request.path === '/v1/browsers/ac-1') return { status: 204 };
    return undefined;
  });
});
after(async () => {
  await vendor.close();
  rmSync(home, { recursive: true, force: true, maxRetries: 10 });
});

describe('the docs/providers.md worked example', () => {
  it('loads, creates and releases a session as the page says', async () => {
    const env: Record<string, string | undefined> = {};
    const log = recordingLogger();
    const config = loadConfig({ home, env: {}, log });
    const { registry, diagnostics } = await discoverProviders({
      ...providerDiscoveryOptions(config, env, log),
      nodeModulesDirs: [],
    });
    assert.deepEqual(diagnostics, []);
    const acme = registry.get('acme');
    assert.ok(acme);
    assert.equal(acme.isAvailable(), false);
    await assert.rejects(acme.createSession('t'), { code: 'provider_not_configured' });
    Object.assign(env, { ACME_API_KEY: 'acme-key-123', ACME_BASE_URL: vendor.url });
    const session = await acme.createSession('t');
    assert.equal(session.bb_session_id, 'ac-1');
    assert.deepEqual(session.features, { acme: true, region: 'eu' });
    assert.equal(await acme.closeSession(session.bb_session_id), true);
    assert.equal(acme.getSetupSchema()?.name, 'Acme Browser');
  });
});
