import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parse } from 'yaml';
import { readEnvFile } from '../../src/providers/index.js';
import { runCli } from './fixtures/terminal.js';
import { tempDir } from '../helpers/temp-dir.js';

const DOWN = '\x1b[B';
const UP = '\x1b[A';
const ENTER = '\r';
const CTRL_C = '\x03';
const SECRET = 'bb_live_TOPSECRET_4242';

let home: string;
const env = () => ({ TABGATE_HOME: home });
const configFile = () => path.join(home, 'config.yaml');
const envFile = () => path.join(home, '.env');
const config = () => parse(readFileSync(configFile(), 'utf8')) as { browser?: { cloud_provider?: string } };

beforeEach(() => {
  home = tempDir('tools');
});
afterEach(() => rmSync(home, { recursive: true, force: true, maxRetries: 10 }));

describe('tabgate tools in a terminal', () => {
  it('chooses Browserbase with the arrow keys and stores its hidden key', async () => {
    writeFileSync(configFile(), '# my gateway\ngateway:\n  port: 9000 # custom\nbrowser:\n  headed: false\n');
    const run = runCli(['tools'], env(), { tty: true });
    await run.waitFor(/Remote CDP browser/);
    // Rows: Local, Browser Use, Browserbase, …; go past it and back up to exercise the redraw.
    run.write(DOWN);
    run.write(DOWN);
    run.write(DOWN);
    run.write(UP);
    run.write(ENTER);
    await run.waitFor(/BROWSERBASE_API_KEY/);
    run.write(SECRET + ENTER);
    await run.waitFor(/BROWSERBASE_PROJECT_ID/);
    run.write('proj-7' + ENTER);
    assert.equal(await run.exit, 0, run.output());

    assert.ok(!run.output().includes(SECRET), 'the secret was echoed');
    assert.deepEqual(readEnvFile(envFile()), {
      BROWSERBASE_API_KEY: SECRET,
      BROWSERBASE_PROJECT_ID: 'proj-7',
    });
    assert.equal(statSync(envFile()).mode & 0o777, 0o600);
    const text = readFileSync(configFile(), 'utf8');
    assert.match(text, /^# my gateway\ngateway:\n {2}port: 9000 # custom\n/);
    assert.deepEqual(parse(text), {
      gateway: { port: 9000 },
      browser: { headed: false, cloud_provider: 'browserbase' },
    });
  });

  it('writes nothing when Ctrl-C is pressed at a prompt', async () => {
    const run = runCli(['tools'], env(), { tty: true });
    await run.waitFor(/Remote CDP browser/);
    run.write(DOWN + ENTER);
    await run.waitFor(/BROWSER_USE_API_KEY/);
    run.write('half-typed');
    run.write(CTRL_C);
    assert.equal(await run.exit, 130);
    assert.match(run.output(), /nothing was changed/);
    assert.equal(existsSync(configFile()), false);
    assert.equal(existsSync(envFile()), false);
  });
});

describe('tabgate tools without a terminal', () => {
  it('takes numbered answers from a pipe', async () => {
    const run = runCli(['tools'], env(), { tty: false });
    await run.waitFor(/Choose 1-6/);
    run.write('4\n');
    await run.waitFor(/FIRECRAWL_API_KEY/);
    run.write('fc-secret-123456\n');
    assert.equal(await run.exit, 0, run.output());
    assert.equal(config().browser?.cloud_provider, 'firecrawl');
    assert.deepEqual(readEnvFile(envFile()), { FIRECRAWL_API_KEY: 'fc-secret-123456' });
  });

  it('keeps an existing value when the answer is empty, and shows the provider as ready', async () => {
    writeFileSync(envFile(), 'BROWSER_USE_API_KEY="kept-value"\n', { mode: 0o600 });
    const run = runCli(['tools'], env(), { tty: false });
    await run.waitFor(/Browser Use .*\[ready\]/);
    run.write('2\n\n');
    assert.equal(await run.exit, 0, run.output());
    assert.deepEqual(readEnvFile(envFile()), { BROWSER_USE_API_KEY: 'kept-value' });
    assert.equal(config().browser?.cloud_provider, 'browser-use');
  });

  it('configures a provider from flags alone', async () => {
    const run = runCli(
      ['tools', '--provider', 'remote-cdp', '--set', 'REMOTE_CDP_URL=ws://10.0.0.2:9222/devtools/browser/x'],
      env(),
      { tty: false },
    );
    assert.equal(await run.exit, 0, run.output());
    assert.equal(config().browser?.cloud_provider, 'remote-cdp');
    assert.equal(readEnvFile(envFile()).REMOTE_CDP_URL, 'ws://10.0.0.2:9222/devtools/browser/x');
  });

  it('chooses Camofox and stores its URL', async () => {
    const run = runCli(
      ['tools', '--provider', 'camofox', '--set', 'CAMOFOX_URL=http://127.0.0.1:9377'],
      env(),
      {
        tty: false,
      },
    );
    assert.equal(await run.exit, 0, run.output());
    assert.equal(config().browser?.cloud_provider, 'camofox');
    assert.equal(readEnvFile(envFile()).CAMOFOX_URL, 'http://127.0.0.1:9377');
  });

  it('switches back to the local Chromium', async () => {
    writeFileSync(configFile(), 'browser:\n  cloud_provider: firecrawl\n');
    const run = runCli(['tools', '--provider', 'local'], env(), { tty: false });
    assert.equal(await run.exit, 0, run.output());
    assert.equal(config().browser?.cloud_provider, 'local');
  });

  it('refuses an unknown provider with exit code 2 and changes nothing', async () => {
    const run = runCli(['tools', '--provider', 'nope', '--set', 'A=1'], env(), { tty: false });
    assert.equal(await run.exit, 2);
    assert.match(run.output(), /unknown provider "nope"; choose one of: local, camofox, browser-use/);
    assert.equal(existsSync(configFile()), false);
    assert.equal(existsSync(envFile()), false);
  });

  it('offers a plugin without a setup schema by its plugin.yaml, and runs its post_setup step after storing the key', async () => {
    const dir = path.join(home, 'plugins', 'browser', 'hooked');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'plugin.yaml'),
      'name: hooked\nversion: 1.0.0\ndescription: Hooked cloud browsers\nkind: backend\n' +
        'provides_browser_providers: [hooked]\nrequires_env: [HOOKED_KEY]\npost_setup: agent_browser\n',
    );
    // No displayName, no getSetupSchema, and the seed's isConfigured: the row comes from plugin.yaml.
    writeFileSync(
      path.join(dir, 'index.js'),
      `export function register(ctx) { ctx.registerBrowserProvider({ name: 'hooked', providerName: () => 'Hooked Cloud', isConfigured: () => Boolean(ctx.env.HOOKED_KEY), createSession: async () => ({}), closeSession: async () => true, emergencyCleanup: async () => true }); }`,
    );
    writeFileSync(configFile(), 'plugins:\n  enabled: [hooked]\n');
    const run = runCli(['tools'], env(), { tty: false });
    const offered = /(\d)\) Hooked Cloud — {2}— Hooked cloud browsers \[needs HOOKED_KEY\]/;
    await run.waitFor(offered);
    run.write(`${offered.exec(run.output())?.[1]}\n`);
    await run.waitFor(/HOOKED_KEY/);
    run.write('hooked-secret-1\n');
    assert.equal(await run.exit, 0, run.output());
    assert.equal(config().browser?.cloud_provider, 'hooked');
    assert.deepEqual(readEnvFile(envFile()), { HOOKED_KEY: 'hooked-secret-1' });
    assert.match(run.output(), /Setup step done: nothing to install/);
  });

  it('refuses to run a post_setup that names no known step', async () => {
    const dir = path.join(home, 'plugins', 'browser', 'odd');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'plugin.yaml'),
      'name: odd\nversion: 1.0.0\nkind: backend\nprovides_browser_providers: [odd]\npost_setup: install_everything\n',
    );
    writeFileSync(
      path.join(dir, 'index.js'),
      `export function register(ctx) { ctx.registerBrowserProvider({ name: 'odd', isAvailable: () => true, createSession: async () => ({}), closeSession: async () => true, emergencyCleanup: async () => true }); }`,
    );
    writeFileSync(configFile(), 'plugins:\n  enabled: [odd]\n');
    const run = runCli(['tools', '--provider', 'odd'], env(), { tty: false });
    assert.equal(await run.exit, 0, run.output());
    assert.match(run.output(), /Setup step "install_everything" was not run: it is not one tabgate knows/);
  });
});
