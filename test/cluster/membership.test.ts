/**
 * Who belongs to a cluster: a node whose configuration differs from the running nodes' is refused at
 * start with a message saying so, while the address and port may differ per node; `tabgate doctor`
 * shows the Redis version, every node alive by its lease and any node with another configuration, and
 * never a password.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { ENABLED_CONFIG, makeHome, writeConfigFile } from '../gateway/fixtures/gateway.js';
import { runTabgate } from '../helpers/tabgate-cli.js';
import { useNodeOnItsOwnRedis } from './fixtures/cluster-nodes.js';

describe('cluster membership', () => {
  const node = useNodeOnItsOwnRedis();
  const homes: string[] = [];
  const homeWith = (config: Record<string, unknown>) => {
    const home = makeHome();
    homes.push(home);
    writeConfigFile(home, config);
    return home;
  };
  after(() => {
    for (const home of homes) fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  });

  it('refuses a node whose configuration differs from the running nodes’', async () => {
    const home = homeWith({
      gateway: { host: '127.0.0.1', port: 0 },
      browser: { extension_control: { enabled: true, command_timeout: 7 } },
    });
    const result = await runTabgate(home, ['serve', '--cluster', node.redis.url]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /configuration \(digest \w+\) differs from the running cluster's/);
  });

  it('doctor lists the live nodes and Redis, a node on another port being no mismatch', async () => {
    const home = homeWith({
      ...ENABLED_CONFIG,
      gateway: { host: '127.0.0.1', port: 8999 },
      cluster: { redis_url: node.redis.url.replace('redis://', 'redis://default:doctor-pw@') },
    });
    const result = await runTabgate(home, ['doctor']);
    assert.match(
      result.stdout,
      /cluster: Redis at redis:\/\/default:\*\*\*@127\.0\.0\.1:\d+ answers \(Redis 7/,
    );
    assert.match(result.stdout, /cluster: node \w{8} \(pid \d+\) alive, lease renewed \d+ ms ago\n/);
    assert.doesNotMatch(result.stdout, /another configuration/);
    assert.doesNotMatch(result.stdout + result.stderr, /doctor-pw/);
  });

  it('doctor names a node that runs another configuration', async () => {
    const home = homeWith({
      ...ENABLED_CONFIG,
      audit: { retention_days: 3 },
      cluster: { redis_url: node.redis.url },
    });
    const result = await runTabgate(home, ['doctor']);
    assert.match(result.stdout, /ERROR {2}cluster: node \w{8} .* runs another configuration/);
  });
});
