import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/gateway/config/index.js';
import { GrantStore } from '../../src/gateway/sites/grant-store.js';
import { SitePolicies } from '../../src/gateway/sites/site-policies.js';
import { openDatabase } from '../../src/gateway/store/database.js';
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
    const db = openDatabase(home);
    return { db, sites: new SitePolicies(loadConfig({ home }).safety, new GrantStore(db), systemClock) };
  };

  it('takes a grant and a revoke into account from the next decision on', () => {
    const { db, sites } = policies();
    assert.equal(sites.rulesFor('s1', false).decideUrl('https://a.test/').allowed, false);
    sites.grant('s1', 'A.test');
    assert.equal(sites.rulesFor('s1', false).decideUrl('https://a.test/').allowed, true);
    assert.equal(sites.rulesFor('s2', false).decideUrl('https://a.test/').allowed, false);
    assert.equal(sites.baseRules(false).decideUrl('https://a.test/').allowed, false);
    assert.equal(sites.revoke('s1', 'a.test'), true);
    assert.equal(sites.rulesFor('s1', false).decideUrl('https://a.test/').allowed, false);
    db.close();
  });

  it('keeps what a session asked for apart from what it was granted', () => {
    const { db, sites } = policies();
    sites.request('s1', sites.validate(['https://A.test:443', '*.b.test']));
    assert.equal(sites.rulesFor('s1', false).decideUrl('https://a.test/').allowed, false);
    assert.deepEqual(sites.view('s1', 'local').requested, ['https://a.test', '*.b.test']);
    assert.throws(() => sites.validate(['https://a.test/path']), /sites\[0\]/);
    db.close();
  });

  it('refuses every site when the grants cannot be read', () => {
    const { db, sites } = policies();
    sites.grant('s1', 'a.test');
    db.close();
    const rules = sites.rulesFor('s9', false);
    assert.equal(rules.decideUrl('https://a.test/').allowed, false);
    assert.equal(rules.decideUrl('https://example.com/').allowed, false);
  });
});
