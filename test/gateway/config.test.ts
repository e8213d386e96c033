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

  it('warns about unknown keys, naming the key and its line, without failing', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line) });
    const config = loadConfig({ home: home('browser:\n  headles: true\nextra: 1\n'), log });
    assert.ok(
      lines.some((line) => line.includes('key=browser.headles') && line.includes('line 2, column 3')),
    );
    assert.ok(lines.some((line) => line.includes('key=extra') && line.includes('line 3, column 1')));
    assert.equal((config.browser as Record<string, unknown>).headles, undefined);
  });

  it('ignores a __proto__ key under browser.extension_control with a warning, and starts', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line) });
    const yaml =
      'browser:\n  extension_control:\n    __proto__:\n      enabled: true\n      polluted: yes\n' +
      '    allowed_origins: []\n';
    const config = loadConfig({ home: home(yaml), log });
    assert.equal(config.browser.extension_control.enabled, false, 'nothing inherited from __proto__');
    assert.equal(Object.getPrototypeOf(config.browser.extension_control), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.ok(
      lines.some(
        (line) =>
          line.includes('warn') &&
          line.includes('key=browser.extension_control.__proto__') &&
          line.includes('line 3, column 5'),
      ),
      lines.join('\n'),
    );
  });

  it('refuses a YAML alias of a value it is part of, naming the key, and takes an alias used twice', () => {
    // Handed back by the YAML library as a cycle, this overflowed the stack: `tabgate serve` crashed.
    assert.throws(
      () => loadConfig({ home: home('browser:\n  chromium_args: &args [--x, *args]\n') }),
      (error: Error) =>
        error instanceof ConfigError &&
        /browser\.chromium_args\.1 \(line 2, column \d+\) holds a YAML alias of a value it is part of/.test(
          error.message,
        ),
    );
    assert.throws(() => loadConfig({ home: home('a: &x [*x]\n') }), ConfigError);
    const shared = loadConfig({
      home: home(
        'safety:\n  sites:\n    allow: &hosts [example.com]\n    deny: []\nbrowser:\n  allowed_private_hosts: *hosts\n',
      ),
    });
    assert.deepEqual(shared.browser.allowed_private_hosts, ['example.com']);
  });

  it('ignores constructor and prototype keys at any depth, and keeps the keys beside them', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line) });
    const yaml =
      'constructor:\n  prototype:\n    x: 1\ngateway:\n  prototype: 1\n  port: 9001\n' +
      'browser:\n  extension_control:\n    constructor: {enabled: true}\n    enabled: true\n';
    const config = loadConfig({ home: home(yaml), log });
    assert.equal(config.gateway.port, 9001);
    assert.equal(config.browser.extension_control.enabled, true);
    for (const key of ['constructor', 'gateway.prototype', 'browser.extension_control.constructor'])
      assert.ok(
        lines.some((line) => line.includes(`key=${key} `)),
        key,
      );
  });

  it('fails with a message naming the key and its line and column for a wrongly typed value', () => {
    assert.throws(
      () => loadConfig({ home: home('gateway:\n  host: 127.0.0.1\n  port: eighty\n') }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /gateway\.port \(line 3, column 3\): .*number/.test(error.message) &&
        error.message.includes('config.yaml'),
    );
  });

  it('fails with a message naming the line for a file that is not YAML', () => {
    assert.throws(
      () => loadConfig({ home: home('gateway:\n  port: 1\n  port: 2\n') }),
      (error: unknown) => error instanceof ConfigError && /line 3/.test(error.message),
    );
  });

  it('fails clearly for a file that is not YAML', () => {
    assert.throws(() => loadConfig({ home: home('gateway: [unclosed\n') }), ConfigError);
  });

  it('refuses a browser.inactivity_timeout under 30 seconds, naming the key', () => {
    assert.throws(
      () => loadConfig({ home: home('browser:\n  inactivity_timeout: 10\n') }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /browser\.inactivity_timeout \(line 2, column 3\)/.test(error.message),
    );
    assert.equal(
      loadConfig({ home: home('browser:\n  inactivity_timeout: 30\n') }).browser.inactivity_timeout,
      30,
    );
  });

  it('takes gateway.limits.register_per_second, 10 by default, and refuses one that is not a positive number', () => {
    assert.equal(loadConfig({ home: home() }).gateway.limits.register_per_second, 10);
    const set = loadConfig({ home: home('gateway:\n  limits:\n    register_per_second: 50\n') });
    assert.equal(set.gateway.limits.register_per_second, 50);
    assert.equal(set.gateway.limits.max_connections, 4096, 'the other limits keep their defaults');
    for (const bad of ['0', '-1', 'fast'])
      assert.throws(
        () => loadConfig({ home: home(`gateway:\n  limits:\n    register_per_second: ${bad}\n`) }),
        (error: unknown) =>
          error instanceof ConfigError && /gateway\.limits\.register_per_second/.test(error.message),
        bad,
      );
  });

  it('maps the admission limits to the backend settings, with defaults', () => {
    const defaults = browserSettingsOf(loadConfig({ home: home() }));
    assert.ok(defaults.maxSessions >= 1 && defaults.maxConcurrentActions >= 1);
    const dir = home('browser:\n  max_sessions: 8\n  max_concurrent_actions: 2\n');
    const settings = browserSettingsOf(loadConfig({ home: dir }));
    assert.equal(settings.maxSessions, 8);
    assert.equal(settings.maxConcurrentActions, 2);
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
