/**
 * Where a node finds its Redis: `cluster.redis_url` in config.yaml, then TABGATE_REDIS_URL, then
 * `--cluster`, each later one winning; without any of them the gateway is not a cluster node.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/gateway/config/index.js';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { runTabgate } from '../helpers/tabgate-cli.js';

describe('cluster configuration', () => {
  const homes: string[] = [];
  const home = (yaml: string) => {
    const dir = makeHome();
    homes.push(dir);
    fs.writeFileSync(path.join(dir, 'config.yaml'), yaml);
    return dir;
  };
  after(() => {
    for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  });

  it('is off unless a Redis URL is given', () => {
    assert.equal(loadConfig({ home: home('{}') }).cluster.redis_url, undefined);
  });

  it('reads config.yaml, then TABGATE_REDIS_URL, then --cluster', () => {
    const dir = home('cluster:\n  redis_url: redis://file:6379\n');
    assert.equal(loadConfig({ home: dir }).cluster.redis_url, 'redis://file:6379');
    const env = { TABGATE_REDIS_URL: 'redis://env:6379' };
    assert.equal(loadConfig({ home: dir, env }).cluster.redis_url, 'redis://env:6379');
    assert.equal(
      loadConfig({ home: dir, env, flags: { cluster: 'redis://flag:6379' } }).cluster.redis_url,
      'redis://flag:6379',
    );
  });

  it('refuses a URL that is not redis:// or rediss://, without echoing it', () => {
    assert.throws(
      () => loadConfig({ home: home('{}'), flags: { cluster: 'http://user:hunter2@host:6379' } }),
      (error: unknown) => error instanceof ConfigError && !error.message.includes('hunter2'),
    );
  });

  it('stops serve at once when its Redis cannot be reached, naming the URL with the password hidden', async () => {
    const result = await runTabgate(home('{}'), [
      'serve',
      '--port',
      '0',
      '--cluster',
      'redis://:hunter2@127.0.0.1:1',
    ]);
    assert.equal(result.code, 1);
    // Told as a sentence for the person, not thrown as a crash with a stack.
    assert.match(
      result.stderr,
      /^tabgate: cannot reach the cluster's Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1/m,
    );
    assert.doesNotMatch(result.stdout + result.stderr, /hunter2|listening|\n\s+at /);
  });
});
