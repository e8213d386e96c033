import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { browserSettingsOf, ConfigError, loadConfig } from '../../src/gateway/config/index.js';
import { createLogger } from '../../src/log/logger.js';
import { makeHome } from './fixtures/gateway.js';

describe('configuration', () => {
  const homes: string[] = [];
  const home = (yaml?: string) => {
    const dir = makeHome();
    homes.push(dir);
    if (yaml !== undefined) fs.writeFileSync(path.join(dir, 'config.yaml'), yaml);
    return dir;
  };
  after(() => {
    for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  });

  it('uses the defaults when there is no config.yaml', () => {
    const config = loadConfig({ home: home() });
    assert.equal(config.gateway.host, '127.0.0.1');
    assert.equal(config.gateway.port, 8642);
    assert.equal(config.browser.extension_control.enabled, false);
    assert.equal(config.browser.extension_control.command_timeout, 30);
    assert.equal(config.browser.snapshot_max_chars, 15000);
    assert.ok(Object.isFrozen(config.browser.extension_control));
  });

  it('layers file, then environment, then flags', () => {
    const dir = home('gateway:\n  port: 9000\n  host: 127.0.0.2\n  api_server:\n    key: from-file\n');
    const config = loadConfig({ home: dir, env: { API_SERVER_KEY: 'from-env' }, flags: { port: 9100 } });
    assert.equal(config.gateway.host, '127.0.0.2');
    assert.equal(config.gateway.port, 9100);
    assert.equal(config.gateway.api_server.key, 'from-env');
  });

  it('takes browser.allowed_private_hosts as hosts, and refuses a cloud metadata endpoint or a URL in it', () => {
    const config = loadConfig({
      home: home('browser:\n  allowed_private_hosts: [staging.example, 10.1.2.3, "[fd12::1]"]\n'),
    });
    assert.deepEqual(browserSettingsOf(config).allowedPrivateHosts, [
      'staging.example',
      '10.1.2.3',
      '[fd12::1]',
    ]);
    for (const entry of [
      '169.254.169.254',
      'Metadata.Google.Internal',
      '"[fd00:ec2::254]"',
      'http://staging.example/',
    ]) {
      assert.throws(
        () => loadConfig({ home: home(`browser:\n  allowed_private_hosts: [${entry}]\n`) }),
        ConfigError,
        entry,
      );
    }
  });

  it('enables extension control only for the boolean true', () => {
    for (const [value, expected] of [
      ['true', true],
      ['"true"', false],
      ['1', false],
      ['yes please', false],
    ] as const) {
      const config = loadConfig({ home: home(`browser:\n  extension_control:\n    enabled: ${value}\n`) });
      assert.equal(config.browser.extension_control.enabled, expected, value);
    }
  });

  it('warns about unknown keys without failing', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line) });
    loadConfig({ home: home('browser:\n  headles: true\nextra: 1\n'), log });
    assert.ok(lines.some((line) => line.includes('key=browser.headles')));
    assert.ok(lines.some((line) => line.includes('key=extra')));
  });

  it('fails with a message naming the key for a wrongly typed value', () => {
    assert.throws(
      () => loadConfig({ home: home('gateway:\n  port: eighty\n') }),
      (error: unknown) => error instanceof ConfigError && /gateway\.port/.test(error.message),
    );
  });

  it('fails clearly for a file that is not YAML', () => {
    assert.throws(() => loadConfig({ home: home('gateway: [unclosed\n') }), ConfigError);
  });

  it('maps browser.* to the backend settings, CHROME_PATH only as a fallback', () => {
    const fromEnv = browserSettingsOf(loadConfig({ home: home(), env: { CHROME_PATH: '/opt/chrome' } }));
    assert.equal(fromEnv.executablePath, '/opt/chrome');
    const dir = home('browser:\n  executable_path: /usr/bin/chromium\n  inactivity_timeout: 60\n');
    const settings = browserSettingsOf(loadConfig({ home: dir, env: { CHROME_PATH: '/opt/chrome' } }));
    assert.equal(settings.executablePath, '/usr/bin/chromium');
    assert.equal(settings.inactivityTimeoutSeconds, 60);
  });
});
