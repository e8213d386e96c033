/**
 * The extension's check before each action, in Node against a stand-in for the few extension APIs it
 * touches (storage, tabs, declarativeNetRequest) and a real HTTP server playing the gateway's sites
 * route. What the real browser does with it is in site-grants.e2e.test.ts; this file proves the part a
 * browser cannot easily stage: a policy the extension cannot read or parse makes it refuse every
 * action, reading ones included, and never run looser.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { storageArea, type Store } from './fixtures/storage-area.js';

const local: Store = new Map();
const session: Store = new Map();
let rules: { id: number }[] = [];
let tabUrl = 'https://shop.example/cart';
(globalThis as Record<string, unknown>).chrome = {
  storage: { local: storageArea(local), session: storageArea(session) },
  tabs: {
    get: (id: number) => Promise.resolve({ id, url: tabUrl }),
    query: () => Promise.resolve([{ id: 7 }]),
  },
  declarativeNetRequest: {
    getSessionRules: () => Promise.resolve(rules),
    updateSessionRules: (o: { removeRuleIds?: number[]; addRules?: { id: number }[] }) => {
      rules = [...rules.filter((rule) => !o.removeRuleIds?.includes(rule.id)), ...(o.addRules ?? [])];
      return Promise.resolve();
    },
  },
};
const { SiteGuard } = await import('../../src/extension/background/site-guard.js');

const POLICY = {
  mode: 'ask',
  allow: [],
  deny: [],
  grants: ['https://mail.example.com'],
  blockedCategories: [],
};

describe("the extension's check before each action", () => {
  let answer: unknown = null;
  let server: http.Server;
  let base = '';
  before(async () => {
    server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    local.clear();
    session.clear();
    rules = [];
    tabUrl = 'https://shop.example/cart';
    local.set('gateway_url', base);
    local.set('pairing', { token: 'tok', grant_id: 'g', name: 'n' });
    local.set('share', {
      session_id: 's1',
      title: null,
      tab_ids: [7],
      active_tab_id: 7,
      group_id: null,
      shared_origin: 'https://shop.example',
    });
    answer = { policy: POLICY, sites: { granted: POLICY.grants, requested: [] } };
  });

  const refusal = async (run: Promise<unknown>): Promise<string> => {
    const error = await run.then(
      () => null,
      (caught: unknown) => caught as { code?: string },
    );
    assert.ok(error, 'the action was let through');
    return error.code ?? '';
  };
  const deadline = () => Date.now() + 10_000;

  it('refuses every action, reading ones too, when the gateway cannot be asked', async () => {
    local.set('gateway_url', 'http://127.0.0.1:9');
    const guard = new SiteGuard();
    for (const action of ['browser_snapshot', 'browser_click', 'browser_navigate'])
      assert.equal(
        await refusal(guard.before(action, { url: 'https://shop.example/' }, deadline())),
        'site_policy_unavailable',
      );
  });

  it('refuses when the gateway answers something that is not a policy', async () => {
    const guard = new SiteGuard();
    for (const bad of [
      { policy: { ...POLICY, mode: 'anything' }, sites: { granted: [], requested: [] } },
      { policy: { ...POLICY, blockedCategories: ['news'] }, sites: { granted: [], requested: [] } },
      { sites: { granted: [], requested: [] } },
      null,
    ]) {
      answer = bad;
      assert.equal(await refusal(guard.before('browser_click', {}, deadline())), 'site_policy_unavailable');
    }
  });

  it('judges the navigation, the page acted on, and the origin of the last snapshot', async () => {
    const guard = new SiteGuard();
    await guard.before('browser_navigate', { url: 'https://mail.example.com/inbox' }, deadline());
    assert.equal(
      await refusal(guard.before('browser_navigate', { url: 'https://bank.example/' }, deadline())),
      'site_not_granted',
    );
    await guard.after('browser_snapshot');
    await guard.before('browser_click', { ref: '@e1' }, deadline());
    tabUrl = 'https://mail.example.com/inbox';
    assert.equal(await refusal(guard.before('browser_click', { ref: '@e1' }, deadline())), 'domain_changed');
    // Scrolling names no ref: the page's own site is allowed, so it goes.
    await guard.before('browser_scroll', {}, deadline());
    tabUrl = 'https://bank.example/';
    assert.equal(await refusal(guard.before('browser_scroll', {}, deadline())), 'site_not_granted');
  });

  it('installs the network rules for the shared tab once it has the policy', async () => {
    await new SiteGuard().before('browser_snapshot', {}, deadline());
    assert.ok(rules.length > 0);
    assert.ok(rules.every((rule) => rule.id >= 100));
  });
});
