import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createInMemoryBroker } from '../../src/gateway/broker/index.js';
import type { ControllerScope, LaneQuery } from '../../src/gateway/broker/scope.js';
import { silentLogger } from '../../src/log/logger.js';
import { DEFERRED_CANCEL_CAP, TabgateError } from '../../src/protocol/index.js';
import { ManualClock, settledNow } from '../helpers/manual-clock.js';

const scope: ControllerScope = {
  principal_id: 'owner',
  profile_id: 'default',
  session_id: 's1',
  controller_id: 'c1',
  browser_profile_id: 'b1',
  transport_family: 'local-api',
  capabilities: ['browser_tabs'],
};

describe('broker', () => {
  it('times each command out at its own deadline, not at an earlier one’s, and never one that was answered', async () => {
    const timeoutMs = 1000;
    const clock = new ManualClock();
    const broker = createInMemoryBroker({ clock, log: silentLogger, commandTimeoutMs: timeoutMs });
    const sent: { method: string; params: { command_id: string; tool_call_id: string } }[] = [];
    broker.attach(scope, {}, (text) => sent.push(JSON.parse(text) as (typeof sent)[number]));
    const call = (id: string) =>
      broker
        .dispatch({ scope, action: 'browser_tabs', arguments: {}, toolCallId: id, signal: undefined })
        .then(
          () => 'ok',
          (error: unknown) => (error as TabgateError).code,
        );
    const first = call('first');
    const answered = call('answered');
    clock.advance(timeoutMs / 2);
    const later = call('later');
    const commandOf = (id: string) => sent.find((f) => f.params.tool_call_id === id)?.params.command_id ?? '';
    assert.ok(broker.complete(commandOf('answered'), scope, true, { tabs: [] }));
    assert.equal(await answered, 'ok');

    clock.advance(timeoutMs / 2 - 1);
    assert.equal(await settledNow(first), false, 'not before its deadline');
    clock.advance(1);
    assert.equal(await first, 'controller_timeout');
    assert.equal(await settledNow(later), false, 'the later command keeps its own deadline');
    clock.advance(timeoutMs / 2);
    assert.equal(await later, 'controller_timeout');
    const cancels = sent
      .filter((f) => f.method === 'browser.controller.cancel')
      .map((f) => f.params.tool_call_id);
    assert.deepEqual(cancels, ['first', 'later'], 'only timed-out commands are cancelled, in order');
    broker.close();
  });

  it('moves only the deadline of the command that waits for an approval, and keeps the others on time', async () => {
    const timeoutMs = 1000;
    const clock = new ManualClock();
    const broker = createInMemoryBroker({ clock, log: silentLogger, commandTimeoutMs: timeoutMs });
    const clicks: ControllerScope = { ...scope, capabilities: ['browser_tabs', 'browser_click'] };
    const sent: { method: string; params: { command_id: string; tool_call_id: string } }[] = [];
    broker.attach(clicks, {}, (text) => sent.push(JSON.parse(text) as (typeof sent)[number]));
    const call = (action: string, id: string) =>
      broker.dispatch({ scope: clicks, action, arguments: {}, toolCallId: id }).then(
        () => 'ok',
        (error: unknown) => (error as TabgateError).code,
      );
    const waiting = call('browser_click', 'waiting');
    const other = call('browser_tabs', 'other');
    broker.awaitingApproval('s1', 'browser_click', 'apr_1', clock.now() + 5 * timeoutMs);
    broker.awaitingApproval('other-session', 'browser_tabs', 'apr_2', clock.now() + 5 * timeoutMs);
    clock.advance(timeoutMs / 2);
    const after = call('browser_tabs', 'after');
    clock.advance(timeoutMs / 2);
    assert.equal(await other, 'controller_timeout', 'another tool, or another session, keeps its deadline');
    clock.advance(timeoutMs / 2);
    assert.equal(await after, 'controller_timeout', 'a command sent later is not held behind a moved one');
    broker.awaitingApproval('s1', 'browser_click', 'apr_1', clock.now() + 5 * timeoutMs);
    clock.advance(5 * timeoutMs - timeoutMs / 2 - 1);
    assert.equal(await settledNow(waiting), false, 'the approval window is added once');
    clock.advance(1);
    assert.equal(await waiting, 'controller_timeout');
    broker.close();
  });

  it('refuses a call whose caller has already gone, sending nothing', async () => {
    const broker = createInMemoryBroker({
      clock: { now: () => 0 },
      log: silentLogger,
      commandTimeoutMs: 1000,
    });
    const sent: string[] = [];
    broker.attach(scope, {}, (text) => sent.push(text));
    const gone = new AbortController();
    gone.abort();
    await assert.rejects(
      broker.dispatch({ scope, action: 'browser_tabs', arguments: {}, toolCallId: 't', signal: gone.signal }),
      (error: unknown) => error instanceof TabgateError && error.code === 'controller_cancelled',
    );
    assert.deepEqual(sent, []);
    broker.close();
  });

  it("finds a session's controller only for its own principal and transport, however often looked up", () => {
    const broker = createInMemoryBroker({
      clock: { now: () => 0 },
      log: silentLogger,
      commandTimeoutMs: 1000,
    });
    broker.attach(scope, {}, () => undefined);
    const own = {
      principalId: 'owner',
      profileId: 'default',
      sessionId: 's1',
      transportFamily: 'local-api',
    } as const;
    const found = (query: LaneQuery) => broker.laneState(query).registered;
    assert.equal(found(own), true);
    assert.equal(found({ ...own, principalId: 'someone-else' }), false, 'another principal, same session');
    assert.equal(found({ ...own, transportFamily: 'remote-api' }), false, 'another transport, same session');
    assert.equal(found(own), true);
    assert.equal(found({ ...own, sessionId: ' s1 ' }), true, 'ids are compared trimmed');
    for (let i = 0; i < 5000; i++) found({ ...own, sessionId: `other-${i}` });
    assert.equal(found(own), true, 'after many other sessions were looked up');
    assert.equal(found({ ...own, principalId: 'someone-else' }), false);
    broker.close();
  });

  it('answers a command whose send failed once, as cancelled, and leaves nothing pending or timed', async () => {
    const timeoutMs = 1000;
    const clock = new ManualClock();
    const broker = createInMemoryBroker({ clock, log: silentLogger, commandTimeoutMs: timeoutMs });
    const sent: { method: string; params: { command_id: string } }[] = [];
    let lost = '';
    broker.attach(scope, {}, (text) => {
      if (!lost) {
        lost = (JSON.parse(text) as (typeof sent)[number]).params.command_id;
        throw new Error('browser-control websocket is closed');
      }
      sent.push(JSON.parse(text) as (typeof sent)[number]);
    });
    const caller = new AbortController();
    const settled: string[] = [];
    await broker
      .dispatch({ scope, action: 'browser_tabs', arguments: {}, toolCallId: 'lost', signal: caller.signal })
      .then(
        () => settled.push('ok'),
        (error: unknown) => settled.push((error as TabgateError).code),
      );
    assert.deepEqual(settled, ['controller_cancelled']);

    // Nothing of it is left: an answer naming it finds nothing, and neither the caller's abort nor its
    // deadline sends a cancel for a command the controller never got.
    assert.equal(broker.complete(lost, scope, true, { tabs: [] }), false);
    caller.abort();
    clock.advance(timeoutMs * 2);
    assert.equal(sent.length, 0);
    assert.deepEqual(settled, ['controller_cancelled'], 'answered once');

    // The socket works again: the next command is sent, answered, and is the only one pending.
    const next = broker.dispatch({ scope, action: 'browser_tabs', arguments: {}, toolCallId: 'next' });
    assert.equal(sent.length, 1);
    assert.ok(broker.complete(sent[0]?.params.command_id ?? '', scope, true, { tabs: [] }));
    assert.deepEqual(await next, { tabs: [] });
    clock.advance(timeoutMs * 2);
    assert.deepEqual(
      sent.map((frame) => frame.method),
      ['browser.controller.command'],
      'no cancel for the answered one either',
    );
    broker.close();
  });

  it('keeps at most 512 deferred cancels for an offline controller, dropping the oldest', async () => {
    const clock = new ManualClock();
    const broker = createInMemoryBroker({ clock, log: silentLogger, commandTimeoutMs: 20 });
    const first: string[] = [];
    const socket = {};
    broker.attach(scope, socket, (text) => first.push(text));
    const total = DEFERRED_CANCEL_CAP + 3;
    const calls = Array.from({ length: total }, (_, i) =>
      broker
        .dispatch({ scope, action: 'browser_tabs', arguments: {}, toolCallId: `t${i}`, signal: undefined })
        .catch((error: unknown) => error),
    );
    broker.disconnect(scope, socket);
    clock.advance(20);
    const outcomes = await Promise.all(calls);
    assert.ok(outcomes.every((e) => e instanceof TabgateError && e.code === 'controller_timeout'));

    const second: { method: string; params: { tool_call_id: string } }[] = [];
    broker.attach(scope, {}, (text) => second.push(JSON.parse(text) as (typeof second)[number]));
    assert.equal(second.length, DEFERRED_CANCEL_CAP);
    assert.ok(second.every((frame) => frame.method === 'browser.controller.cancel'));
    assert.equal(second[0]?.params.tool_call_id, 't3');
    assert.equal(second.at(-1)?.params.tool_call_id, `t${total - 1}`);
    broker.close();
  });

  it('keeps a controller offline when flushing its deferred cancels fails, and keeps the unsent rest', async () => {
    const clock = new ManualClock();
    const broker = createInMemoryBroker({ clock, log: silentLogger, commandTimeoutMs: 20 });
    const socket = {};
    broker.attach(scope, socket, () => undefined);
    const calls = [0, 1].map((i) =>
      broker
        .dispatch({ scope, action: 'browser_tabs', arguments: {}, toolCallId: `t${i}`, signal: undefined })
        .catch(() => undefined),
    );
    broker.disconnect(scope, socket);
    clock.advance(20);
    await Promise.all(calls);
    assert.throws(() =>
      broker.attach(scope, {}, () => {
        throw new Error('socket closed');
      }),
    );
    const lane = broker.laneState({
      principalId: 'owner',
      profileId: 'default',
      sessionId: 's1',
      transportFamily: 'local-api',
    });
    assert.equal(lane.controllers[0]?.connected, false);
    const flushed: string[] = [];
    broker.attach(scope, {}, (text) => flushed.push(text));
    assert.equal(flushed.length, 2);
    broker.close();
  });
});
