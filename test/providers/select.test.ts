import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BrowserProvider } from '../../src/providers/index.js';
import { ProviderRegistry, selectBrowser } from '../../src/providers/index.js';
import { recordingLogger } from './fixtures/context.js';

/** A provider whose availability the table sets; `'throws'` makes isAvailable() throw. */
function provider(name: string, available: boolean | 'throws'): BrowserProvider {
  return {
    name,
    displayName: name,
    isAvailable: () => {
      if (available === 'throws') throw new Error('availability exploded');
      return available;
    },
    createSession: () => Promise.reject(new Error('unused')),
    closeSession: () => Promise.resolve(true),
    emergencyCleanup: () => Promise.resolve(true),
    getSetupSchema: () => null,
  };
}

type Availability = Record<string, boolean | 'throws'>;

const ROWS: Array<{
  name: string;
  available: Availability;
  cloudProvider?: string;
  cdpUrl?: string;
  camofoxUrl?: string;
  expect: string;
}> = [
  {
    name: 'nothing configured → local',
    available: { 'browser-use': false, browserbase: false, firecrawl: false },
    expect: 'local',
  },
  {
    name: 'a CDP URL overrides every provider',
    available: { 'browser-use': true },
    cloudProvider: 'browser-use',
    cdpUrl: 'ws://h:1/devtools/browser/x',
    expect: 'cdp-url',
  },
  {
    name: 'local is local even when providers are available',
    available: { 'browser-use': true, browserbase: true },
    cloudProvider: 'local',
    expect: 'local',
  },
  {
    name: 'the configured name is matched case-insensitively',
    available: { firecrawl: true },
    cloudProvider: ' Firecrawl ',
    expect: 'provider:firecrawl',
  },
  {
    name: 'a configured name wins even when unavailable',
    available: { browserbase: false, 'browser-use': true },
    cloudProvider: 'browserbase',
    expect: 'provider:browserbase',
  },
  {
    name: 'an unknown name falls back to auto-detect',
    available: { browserbase: true },
    cloudProvider: 'nope',
    expect: 'provider:browserbase',
  },
  {
    name: 'auto-detect prefers Browser Use over Browserbase',
    available: { 'browser-use': true, browserbase: true },
    expect: 'provider:browser-use',
  },
  {
    name: 'auto-detect takes Browserbase when Browser Use is unavailable',
    available: { 'browser-use': false, browserbase: true },
    expect: 'provider:browserbase',
  },
  {
    name: 'an isAvailable that throws counts as unavailable',
    available: { 'browser-use': 'throws', browserbase: true },
    expect: 'provider:browserbase',
  },
  {
    name: 'CAMOFOX_URL alone chooses Camofox, before any auto-detected provider',
    available: { 'browser-use': true },
    camofoxUrl: 'http://127.0.0.1:9377',
    expect: 'camofox',
  },
  {
    name: 'cloud_provider: camofox chooses Camofox',
    available: { browserbase: true },
    cloudProvider: 'Camofox',
    expect: 'camofox',
  },
  {
    name: 'a named provider wins over CAMOFOX_URL',
    available: { browserbase: false },
    cloudProvider: 'browserbase',
    camofoxUrl: 'http://127.0.0.1:9377',
    expect: 'provider:browserbase',
  },
  {
    name: 'a CDP URL wins over Camofox',
    available: {},
    cloudProvider: 'camofox',
    cdpUrl: 'ws://h:1/devtools/browser/x',
    camofoxUrl: 'http://127.0.0.1:9377',
    expect: 'cdp-url',
  },
  { name: 'Firecrawl is never auto-picked', available: { firecrawl: true }, expect: 'local' },
  {
    name: 'third-party providers are never auto-picked',
    available: { 'my-cloud': true, 'remote-cdp': true },
    expect: 'local',
  },
];

describe('browser selection', () => {
  for (const row of ROWS) {
    it(row.name, () => {
      const registry = new ProviderRegistry();
      for (const [name, available] of Object.entries(row.available)) {
        registry.register(provider(name, available), { plugin: name, source: 'bundled', path: '/x' });
      }
      const selection = selectBrowser({
        registry,
        log: recordingLogger(),
        cloudProvider: row.cloudProvider,
        cdpUrl: row.cdpUrl,
        camofoxUrl: row.camofoxUrl,
      });
      const got = selection.kind === 'provider' ? `provider:${selection.provider.name}` : selection.kind;
      assert.equal(got, row.expect);
    });
  }

  it('warns when the configured name is not registered', () => {
    const log = recordingLogger();
    selectBrowser({ registry: new ProviderRegistry(), log, cloudProvider: 'nope' });
    assert.ok(log.lines.some((line) => line.startsWith('warn') && line.includes('nope')));
  });

  it('logs an isAvailable that throws', () => {
    const log = recordingLogger();
    const registry = new ProviderRegistry();
    registry.register(provider('browser-use', 'throws'), { plugin: 'x', source: 'bundled', path: '/x' });
    selectBrowser({ registry, log });
    assert.ok(log.lines.some((line) => line.startsWith('warn') && line.includes('availability exploded')));
  });
});
