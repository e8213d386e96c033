/**
 * A caller node killed with -9 leaves pending commands behind, and nobody will cancel them. The node
 * holding the socket drops them once the caller's lease has expired: a sent one is cancelled at its
 * controller, and one still queued is never sent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { register, TestController } from '../gateway/fixtures/controller.js';
import { waitFor } from '../helpers/wait-for.js';
import { callTool } from './broker-suite.js';
import { useCluster, type ClusterNode } from './fixtures/cluster-nodes.js';

const COMMAND = 'browser.controller.command';
const CANCEL = 'browser.controller.cancel';

describe('a caller node that dies', () => {
  const fixture = useCluster(2);

  it('leaves no pending command: the sent one is cancelled, a queued one never sent', async () => {
    const [a, b] = fixture.cluster.nodes as [ClusterNode, ClusterNode];
    const { redis } = fixture;
    const sessionId = await b.gw.createSession();
    const controller = await TestController.open(b.gw, await register(b.gw, { sessionId }));
    void callTool(a.gw, sessionId).catch(() => null);
    const command = await controller.next(COMMAND, 3000);
    const pendKey = redis.cli('--scan', '--pattern', 'tg:*:pend:*');
    const caller = /^\d\|([^|]*)\|/.exec(redis.cli('HGET', pendKey, String(command.params.command_id)))?.[1];
    assert.ok(caller, 'the pending entry names its caller node');

    a.child.kill('SIGKILL');
    await a.exited;
    // The caller's lease lives 3 s; the sweep runs every 0.5 s.
    const cancel = await controller.next(CANCEL, 8000);
    assert.equal(cancel.params.command_id, command.params.command_id);
    await waitFor(() => redis.cli('HLEN', pendKey) === '0', { what: 'the pending entry to be dropped' });

    // A command the dead caller had queued just before dying: fenced, dropped, never written.
    const [, S, h] = /^tg:\{([^}]*)\}:pend:(.*)$/.exec(pendKey) ?? [];
    const laneKey = `tg:{${S}}:lane:${h}`;
    const owner = redis.cli('HGET', laneKey, 'owner');
    const gen = redis.cli('HGET', laneKey, 'gen');
    const frame = JSON.stringify({
      method: COMMAND,
      params: {
        command_id: 'orphan',
        tool_call_id: null,
        action: 'browser_tabs',
        arguments: {},
        deadline_at: Date.now() + 5000,
      },
    });
    redis.cli('HSET', pendKey, 'orphan', `0|${caller}|null`);
    redis.cli(
      'XADD',
      `tg:inbox:${owner}`,
      '*',
      ...['k', 'command', 'h', h ?? '', 'S', S ?? '', 'gen', gen, 'id', 'orphan', 's', '', 'f', frame],
      ...['c', caller],
    );
    await waitFor(() => redis.cli('HEXISTS', pendKey, 'orphan') === '0', {
      what: 'the orphan command to be dropped',
    });
    await controller.nothing(COMMAND);
    assert.equal(controller.history.filter((m) => m === COMMAND).length, 1);
    await controller.close();
  });
});
