/**
 * A node routing from its copy of a lane (no Redis read before the dispatch) must never send a command
 * to the socket a replacement took the lane from, and must reach the new one as soon as the new
 * controller sees its socket open: the attach is acknowledged only once every node keeping a copy has
 * dropped it. Here the copy's node hears nothing for a while (its inbox reader is deaf until it is
 * replaced), so without that wait its next call would run from the stale copy and be refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { register, tabsAnswer, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { callTool } from './broker-suite.js';
import { useProxiedCluster } from './fixtures/cluster-nodes.js';

const COMMAND = 'browser.controller.command';

/** Answers every command with a tab list titled `title`, counting them. */
function serving(controller: TestController, title: string): { commands: number } {
  const seen = { commands: 0 };
  controller.ws.on('message', (data) => {
    const frame = JSON.parse((data as Buffer).toString('utf8')) as {
      method: string;
      params: { command_id: string };
    };
    if (frame.method !== COMMAND) return;
    seen.commands++;
    controller.result(frame.params.command_id, true, tabsAnswer(title));
  });
  return seen;
}

describe('a copy of a lane on a third node', () => {
  const fixture = useProxiedCluster(3);

  it('after a replacement through another node, reaches the new socket only, never the old', async () => {
    const [a, b, c] = fixture.gateways() as [TestGateway, TestGateway, TestGateway];
    const sessionId = await a.createSession();
    const old = await TestController.open(a, await register(a, { sessionId }));
    const oldServed = serving(old, 'old');
    assert.equal((await callTool(c, sessionId)).status, 200);
    // C keeps a copy once it watches the lookup key; the watch set names it.
    const watchers = () =>
      fixture.redis
        .cli('--scan', '--pattern', 'tg:*:watch')
        .split('\n')
        .filter(Boolean)
        .flatMap((key) => fixture.redis.cli('SMEMBERS', key).split('\n').filter(Boolean));
    const [cNode] = await waitFor<string[]>(() => (watchers().length === 1 ? watchers() : null), {
      what: 'C to keep a copy of the lane',
    });
    const routed = await callTool(c, sessionId);
    assert.match(JSON.stringify(routed.body), /"old"/);
    assert.equal(oldServed.commands, 2);

    // C hears nothing now; another browser takes the lane through B.
    assert.equal(fixture.proxy.freezeNamed(`tg-inbox-${cNode}`), 1, 'C’s reader was frozen');
    const replacement = await TestController.open(
      b,
      await register(b, { sessionId, browserProfileId: 'profile-2', controllerId: 'ctrl-2' }),
    );
    const newServed = serving(replacement, 'new');

    const after = await callTool(c, sessionId);
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.match(JSON.stringify(after.body), /"new"/);
    assert.equal(newServed.commands, 1);
    assert.equal(oldServed.commands, 2, 'the replaced socket got nothing more');
    await replacement.close();
    await old.close();
  });
});
