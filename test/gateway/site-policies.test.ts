import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/gateway/config/index.js';
import { SitePolicies } from '../../src/gateway/sites/site-policies.js';
import { SqliteStore } from '../../src/gateway/store/sqlite-store.js';
import { systemClock } from '../../src/gateway/clock.js';
import { makeHome, writeConfigFile } from './fixtures/gateway.js';

describe('site policies per session', () => {
  const homes: string[] = [];
  after(() => {
    for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  });
  const policies = () => {
    const home = makeHome();
    homes.push(home);
    writeConfigFile(home, { safety: { mode: { local: 'ask' } } });
    const store = SqliteStore.open(home);
    const make = () => new SitePolicies(loadConfig({ home }).safety, store.siteGrants, systemClock);
    return { db: store, sites: make(), make };
  };

  it('takes a grant and a revoke into account from the next decision on', async () => {
    const { db, sites } = policies();
    assert.equal(sites.rulesFor('s1', false).decideUrl('https://a.test/').allowed, false);
    await sites.grant('s1', 'A.test');
    assert.equal(sites.rulesFor('s1', false).decideUrl('https://a.test/').allowed, true);
    assert.equal(sites.rulesFor('s2', false).decideUrl('https://a.test/').allowed, false);
    assert.equal(sites.baseRules(false).decideUrl('https://a.test/').allowed, false);
    assert.equal(await sites.revoke('s1', 'a.test'), true);
    assert.equal(sites.rulesFor('s1', false).decideUrl('https://a.test/').allowed, false);
    await db.close();
  });

  it('keeps what a session asked for apart from what it was granted', async () => {
    const { db, sites } = policies();
    await sites.request('s1', sites.validate(['https://A.test:443', '*.b.test']));
    assert.equal(sites.rulesFor('s1', false).decideUrl('https://a.test/').allowed, false);
    assert.deepEqual(sites.view('s1', 'local').requested, ['https://a.test', '*.b.test']);
    assert.throws(() => sites.validate(['https://a.test/path']), /sites\[0\]/);
    await db.close();
  });

  it('holds the grants a restart finds in the store, and those another gateway made once told', async () => {
    const { db, sites, make } = policies();
    await sites.grant('s1', 'a.test');
    const restarted = make();
    assert.equal(restarted.rulesFor('s1', false).decideUrl('https://a.test/').allowed, false);
    await restarted.loadAll();
    assert.equal(restarted.rulesFor('s1', false).decideUrl('https://a.test/').allowed, true);
    // Another gateway on the same store: its revoke counts here once the store announces it.
    await sites.revoke('s1', 'a.test');
    assert.equal(restarted.rulesFor('s1', false).decideUrl('https://a.test/').allowed, true);
    await restarted.storeChanged({ table: 'site_grants', key: 's1' });
    assert.equal(restarted.rulesFor('s1', false).decideUrl('https://a.test/').allowed, false);
    await db.close();
  });
});
