import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/gateway/config/index.js';
import { makeHome } from './fixtures/gateway.js';

describe('the safety: block of config.yaml', () => {
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
  const refuses = (yaml: string, pattern: RegExp) =>
    assert.throws(
      () => loadConfig({ home: home(yaml) }),
      (error: unknown) => error instanceof ConfigError && pattern.test(error.message),
      yaml,
    );

  it('is strict on the user tab and permissive elsewhere when nothing is configured', () => {
    const { safety } = loadConfig({ home: home() });
    assert.deepEqual(safety.mode, { user_tab: 'ask', local: 'off', remote: 'off' });
    assert.deepEqual(safety.sites, { allow: [], deny: [] });
    assert.deepEqual([...safety.blocked_categories].sort(), [
      'adult',
      'banking',
      'crypto',
      'gambling',
      'investing',
      'payments',
    ]);
  });

  it('stores site rules in their canonical form', () => {
    const { safety } = loadConfig({
      home: home(
        'safety:\n  mode:\n    local: allow-listed\n  sites:\n    allow: ["HTTPS://Docs.Example.com:443/", "*.Example.org"]\n    deny: [evil.test.]\n',
      ),
    });
    assert.equal(safety.mode.local, 'allow-listed');
    assert.deepEqual(safety.sites.allow, ['https://docs.example.com', '*.example.org']);
    assert.deepEqual(safety.sites.deny, ['evil.test']);
  });

  it('stops on a site rule it cannot parse, naming the key and its line', () => {
    refuses(
      'safety:\n  sites:\n    allow:\n      - example.com\n      - https://example.com/path\n',
      /safety\.sites\.allow\.1 \(line 5, column 9\): .*without a path/,
    );
    refuses('safety:\n  sites:\n    deny: ["*"]\n', /safety\.sites\.deny\.0 \(line 3/);
  });

  it('stops on an unknown key in the safety block instead of dropping a rule', () => {
    refuses(
      'safety:\n  sites:\n    denny: [evil.test]\n',
      /safety\.sites\.denny \(line 3, column 5\): unknown key/,
    );
    refuses('safety:\n  mood: off\n', /safety\.mood \(line 2/);
  });

  it('has no off mode for the user tab, and no unknown mode or category', () => {
    refuses('safety:\n  mode:\n    user_tab: "off"\n', /safety\.mode\.user_tab \(line 3/);
    refuses('safety:\n  mode:\n    local: permissive\n', /safety\.mode\.local \(line 3/);
    refuses('safety:\n  blocked_categories: [banking, shopping]\n', /safety\.blocked_categories\.1 \(line 2/);
  });

  it('stops on an empty safety block rather than running without one', () => {
    refuses('safety:\n', /safety \(line 1/);
  });
});
