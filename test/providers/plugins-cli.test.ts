import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { PluginRow } from '../../src/providers/plugin-list.js';
import { runCli } from './fixtures/terminal.js';
import { installThirdPartyPlugin, PLUGIN_NAME, PROVIDER_NAME } from './fixtures/third-party-plugin.js';
import { tempDir } from '../helpers/temp-dir.js';

let home: string;
const env = () => ({ TABGATE_HOME: home });

function homePlugin(folder: string, manifest: string) {
  const dir = path.join(home, 'plugins', 'browser', folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'plugin.yaml'), manifest);
  writeFileSync(
    path.join(dir, 'index.js'),
    `export function register(ctx) { ctx.registerBrowserProvider({ name: '${folder}', isAvailable: () => true, createSession: async () => ({}), closeSession: async () => true, emergencyCleanup: async () => true }); }`,
  );
}

async function list(): Promise<PluginRow[]> {
  const run = runCli(['plugins', 'list', '--json'], env(), { tty: false });
  assert.equal(await run.exit, 0, run.output());
  return (JSON.parse(run.output()) as { plugins: PluginRow[] }).plugins;
}

const config = () =>
  parse(readFileSync(path.join(home, 'config.yaml'), 'utf8')) as {
    plugins: { enabled: string[]; disabled: string[] };
  };

beforeEach(() => {
  home = tempDir('plugins-cli');
  installThirdPartyPlugin(home);
  homePlugin(
    'mine',
    'name: mine\nversion: 1.0.0\ndescription: mine\nkind: backend\nprovides_browser_providers: [mine]\n',
  );
  homePlugin('typo', 'name: typo\nversion: 1.0.0\nkind: backend\nprovides_browser_provider: [typo]\n');
  writeFileSync(path.join(home, 'config.yaml'), 'plugins:\n  enabled: [typo]\n');
});
afterEach(() => rmSync(home, { recursive: true, force: true, maxRetries: 10 }));

describe('tabgate plugins', () => {
  it('lists each plugin with its source, its state and why a broken one was skipped', async () => {
    const rows = await list();
    const row = (name: string) => rows.find((r) => r.plugin === name);
    assert.equal(row('browser-browserbase')?.source, 'bundled');
    assert.deepEqual(
      { source: row(PLUGIN_NAME)?.source, state: row(PLUGIN_NAME)?.state },
      { source: 'npm', state: 'loaded' },
    );
    assert.deepEqual(row(PLUGIN_NAME)?.providers, [{ name: PROVIDER_NAME, ready: false }]);
    assert.deepEqual(
      { source: row('mine')?.source, state: row('mine')?.state },
      { source: 'home', state: 'not-enabled' },
    );
    assert.equal(row('typo')?.state, 'broken');
    assert.match(row('typo')?.notes.join(' ') ?? '', /unknown field provides_browser_provider/);
  });

  it('disables and re-enables an npm plugin through config.yaml', async () => {
    const disable = runCli(['plugins', 'disable', PLUGIN_NAME], env(), { tty: false });
    assert.equal(await disable.exit, 0, disable.output());
    assert.deepEqual(config().plugins.disabled, [PLUGIN_NAME]);
    assert.equal((await list()).find((r) => r.plugin === PLUGIN_NAME)?.state, 'disabled');

    const enable = runCli(['plugins', 'enable', PLUGIN_NAME], env(), { tty: false });
    assert.equal(await enable.exit, 0, enable.output());
    assert.deepEqual(config().plugins.disabled, []);
    assert.equal((await list()).find((r) => r.plugin === PLUGIN_NAME)?.state, 'loaded');
  });

  it('enables a home plugin by naming it in plugins.enabled', async () => {
    const run = runCli(['plugins', 'enable', 'mine'], env(), { tty: false });
    assert.equal(await run.exit, 0, run.output());
    assert.deepEqual(config().plugins.enabled, ['typo', 'mine']);
    assert.equal((await list()).find((r) => r.plugin === 'mine')?.state, 'loaded');
  });

  it('refuses an unknown name and changes nothing', async () => {
    const run = runCli(['plugins', 'enable', 'nope'], env(), { tty: false });
    assert.equal(await run.exit, 1);
    assert.match(run.output(), /no plugin named "nope"/);
    assert.equal(readFileSync(path.join(home, 'config.yaml'), 'utf8'), 'plugins:\n  enabled: [typo]\n');
  });

  it('has tabgate doctor report the malformed plugin.yaml', async () => {
    const run = runCli(['doctor', '--json'], env(), { tty: false });
    await run.exit;
    const { findings } = JSON.parse(run.output()) as { findings: Array<{ check: string; message: string }> };
    assert.ok(
      findings.some(
        (f) => f.check === 'plugin' && /typo.*unknown field provides_browser_provider/.test(f.message),
      ),
      run.output(),
    );
  });
});
