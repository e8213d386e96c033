/**
 * `tabgate doctor`: each risky setting is reported and makes the command fail; a clean home passes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/gateway/config/index.js';
import { isFailing, runDoctorChecks, type Finding } from '../../src/cli/doctor-checks.js';
import { makeHome, writeConfigFile } from '../gateway/fixtures/gateway.js';
import { cliEntry } from '../helpers/cli-entry.js';
import { startFakeCamofox } from '../providers/fixtures/fake-camofox.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('tabgate doctor', () => {
  let home: string;
  beforeEach(() => {
    home = makeHome();
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 }));

  const check = async (
    config: Record<string, unknown>,
    env: Record<string, string> = {},
  ): Promise<Finding[]> => {
    writeConfigFile(home, config);
    fs.chmodSync(path.join(home, 'config.yaml'), 0o600);
    return runDoctorChecks({ config: loadConfig({ home, env }), env });
  };
  const risks = (findings: Finding[]) =>
    findings.filter((f) => f.level === 'risk' || f.level === 'error').map((f) => f.check);

  it('passes a default home on loopback with Chromium installed', async () => {
    const findings = await check({});
    assert.deepEqual(risks(findings), []);
    assert.equal(isFailing(findings), false);
  });

  it('checks the health of the Camofox that would serve sessions, never showing its key', async () => {
    // /health needs no browser behind the fake, so none is started.
    const camofox = await startFakeCamofox({
      cdpUrl: 'ws://127.0.0.1:9/devtools/browser/none',
      apiKey: 'cfx-key-1234567890',
    });
    try {
      const selected = { browser: { cloud_provider: 'camofox' } };
      const up = await check(selected, { CAMOFOX_URL: camofox.url, CAMOFOX_API_KEY: 'cfx-key-1234567890' });
      assert.deepEqual(up.find((f) => f.check === 'camofox')?.level, 'ok');
      assert.ok(camofox.requests.includes('GET /health'));
      const wrongKey = await check(selected, {
        CAMOFOX_URL: camofox.url,
        CAMOFOX_API_KEY: 'cfx-wrong-000000000',
      });
      assert.ok(risks(wrongKey).includes('camofox'));
      assert.doesNotMatch(JSON.stringify(wrongKey), /cfx-wrong|cfx-key/);
    } finally {
      await camofox.close();
    }
    const down = await check(
      { browser: { cloud_provider: 'camofox' } },
      { CAMOFOX_URL: 'http://127.0.0.1:9' },
    );
    assert.ok(risks(down).includes('camofox'));
    // Not selected: nothing is asked of it.
    assert.equal(
      (await check({}, {})).find((f) => f.check === 'camofox'),
      undefined,
    );
  });

  it('reports a bind beyond loopback', async () => {
    assert.deepEqual(risks(await check({ gateway: { host: '0.0.0.0' } })), ['bind']);
  });

  it('reports extension control trusting extra extension origins', async () => {
    const findings = await check({
      browser: {
        extension_control: { enabled: true, allowed_origins: ['chrome-extension://' + 'b'.repeat(32)] },
      },
    });
    assert.deepEqual(risks(findings), ['extension_origins']);
  });

  it('reports an API key in a config.yaml others can read', async () => {
    writeConfigFile(home, { gateway: { api_server: { key: 'k'.repeat(40) } } });
    fs.chmodSync(path.join(home, 'config.yaml'), 0o644);
    const findings = await runDoctorChecks({ config: loadConfig({ home, env: {} }), env: {} });
    assert.deepEqual(risks(findings), ['config_permissions']);
  });

  it('reports a home folder every user can read', async () => {
    fs.chmodSync(home, 0o755);
    assert.deepEqual(risks(await check({})), ['home_permissions']);
  });

  it('reports private URLs allowed with a remote browser', async () => {
    const findings = await check({
      browser: { allow_private_urls: true, cdp_url: 'ws://10.0.0.5:9222/devtools/browser/x' },
    });
    assert.ok(risks(findings).includes('allow_private_urls'));
  });

  it('reports a missing browser when the local Chromium serves sessions', async () => {
    const findings = await check({}, { CHROME_PATH: path.join(home, 'no-such-chromium') });
    assert.deepEqual(risks(findings), ['browser']);
  });

  it('reports plugins that failed to load', async () => {
    const dir = path.join(home, 'plugins', 'browser', 'broken');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'plugin.yaml'), 'name: broken\nkind: backend\n');
    const findings = await check({ plugins: { enabled: ['broken'] } });
    assert.ok(findings.some((f) => f.check === 'plugin' && f.message.includes('broken')));
  });

  it('exits 1 from the command line when something is risky, and 0 otherwise', () => {
    const run = () =>
      spawnSync(process.execPath, [...cliEntry(), 'doctor'], {
        cwd: root,
        env: { ...process.env, TABGATE_HOME: home },
        encoding: 'utf8',
      });
    writeConfigFile(home, {});
    assert.equal(run().status, 0);
    writeConfigFile(home, { gateway: { host: '0.0.0.0' } });
    const risky = run();
    assert.equal(risky.status, 1);
    assert.match(risky.stdout, /RISK\s+bind/);
  });
});
