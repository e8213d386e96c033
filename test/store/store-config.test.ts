import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/gateway/config/index.js';
import { redactStoreUrl, scrubPassword } from '../../src/gateway/store/store-url.js';
import { makeHome, writeConfigFile } from '../gateway/fixtures/gateway.js';

describe('store configuration', () => {
  const homes: string[] = [];
  const home = (config: Record<string, unknown> = {}) => {
    const dir = makeHome();
    homes.push(dir);
    writeConfigFile(dir, config);
    return dir;
  };
  after(() => {
    for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uses the embedded SQLite file unless a store URL is given', () => {
    assert.equal(loadConfig({ home: home() }).store.url, undefined);
  });

  it('takes store.url from config.yaml, TABGATE_STORE_URL over it, and --store over both', () => {
    const dir = home({ store: { url: 'postgres://file@db/tabgate' } });
    assert.equal(loadConfig({ home: dir }).store.url, 'postgres://file@db/tabgate');
    const env = { TABGATE_STORE_URL: 'postgres://env@db/tabgate' };
    assert.equal(loadConfig({ home: dir, env }).store.url, 'postgres://env@db/tabgate');
    const flags = { store: 'postgresql://flag@db/tabgate' };
    assert.equal(loadConfig({ home: dir, env, flags }).store.url, 'postgresql://flag@db/tabgate');
  });

  it('refuses a store URL that is not PostgreSQL without quoting it', () => {
    const dir = home({ store: { url: 'mysql://user:hunter2@db/tabgate' } });
    assert.throws(
      () => loadConfig({ home: dir }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /store\.url.*expected a postgres:\/\/ URL/.test(error.message) &&
        !error.message.includes('hunter2'),
    );
  });

  it('hides the password of a URL wherever one is printed', () => {
    assert.equal(
      redactStoreUrl('postgres://tabgate:s%40cret@db.example:5433/tg?sslmode=require'),
      'postgres://tabgate:***@db.example:5433/tg?sslmode=require',
    );
    assert.equal(redactStoreUrl('postgres://db/tg?password=hunter2'), 'postgres://db/tg?password=***');
    assert.equal(redactStoreUrl('not a url with hunter2'), '***');
    assert.equal(
      scrubPassword('auth failed for s@cret', 'postgres://tabgate:s%40cret@db/tg'),
      'auth failed for ***',
    );
  });
});
