/**
 * The admission slots every engine and provider backend shares: a bound, a FIFO queue of bounded
 * length, a wait that ends with `browser_busy`, and a slot handed to the oldest waiter.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Admission, Slots } from '../../src/gateway/backends/admission.js';
import { TabgateError } from '../../src/protocol/index.js';
import { ManualClock, settledNow } from '../helpers/manual-clock.js';

const clock = new ManualClock();
const slots = (limit: number, queueLength: number) =>
  new Slots({ what: 'things', limit, queueLength, retryAfterSeconds: 3 }, clock);

const isBusy = (error: unknown) =>
  error instanceof TabgateError &&
  error.code === 'browser_busy' &&
  error.retryAfterSeconds === 3 &&
  /retry in 3 s/.test(error.message);

describe('admission slots', () => {
  it('grants up to the limit at once', async () => {
    const s = slots(2, 0);
    await s.acquire(clock.now() + 1000);
    await s.acquire(clock.now() + 1000);
    assert.equal(s.inUse, 2);
  });

  it('refuses at once with browser_busy when the queue is full', async () => {
    const s = slots(1, 1);
    await s.acquire(clock.now() + 1000);
    const waiting = s.acquire(clock.now() + 1000);
    await assert.rejects(s.acquire(clock.now() + 1000), isBusy);
    assert.equal(s.queued, 1);
    waiting.catch(() => undefined);
  });

  it('refuses a waiter with browser_busy when its admission window ends, not before', async () => {
    const s = slots(1, 4);
    await s.acquire(clock.now() + 1000);
    const waiting = s.acquire(clock.now() + 50);
    clock.advance(49);
    assert.equal(await settledNow(waiting), false);
    clock.advance(1);
    await assert.rejects(waiting, isBusy);
    assert.equal(s.queued, 0);
  });

  it('hands a released slot to the oldest waiter, once per release', async () => {
    const s = slots(1, 4);
    const release = await s.acquire(clock.now() + 1000);
    const order: string[] = [];
    const first = s.acquire(clock.now() + 1000).then((r) => (order.push('first'), r));
    const second = s.acquire(clock.now() + 1000).then((r) => (order.push('second'), r));
    release();
    release();
    (await first)();
    (await second)();
    assert.deepEqual(order, ['first', 'second']);
    assert.equal(s.inUse, 0);
  });

  it('takes a cancelled waiter out of the queue', async () => {
    const s = slots(1, 4);
    await s.acquire(clock.now() + 1000);
    const controller = new AbortController();
    const waiting = s.acquire(clock.now() + 1000, controller.signal);
    controller.abort();
    await assert.rejects(waiting, (error: unknown) => (error as TabgateError).code === 'call_cancelled');
    assert.equal(s.queued, 0);
  });
});

describe('admission windows', () => {
  const COMMAND_TIMEOUT_MS = 30_000;
  const admission = () =>
    new Admission(
      { maxSessions: 1, maxConcurrentActions: 1, commandTimeoutSeconds: COMMAND_TIMEOUT_MS / 1000 },
      clock,
    );

  it('lets a new session wait a third of command_timeout for a session slot, then answers browser_busy', async () => {
    const a = admission();
    await a.sessions.acquire(a.admitBy());
    const waiting = a.sessions.acquire(a.admitBy());
    clock.advance(COMMAND_TIMEOUT_MS / 3 - 1);
    assert.equal(await settledNow(waiting), false);
    clock.advance(1);
    await assert.rejects(waiting, (error: unknown) => (error as TabgateError).code === 'browser_busy');
  });

  it("lets an admitted session's call wait two thirds of command_timeout for an action slot, then answers browser_busy", async () => {
    const a = admission();
    await a.actions.acquire(a.actionBy());
    const waiting = a.actions.acquire(a.actionBy());
    clock.advance((COMMAND_TIMEOUT_MS * 2) / 3 - 1);
    assert.equal(await settledNow(waiting), false);
    clock.advance(1);
    await assert.rejects(waiting, (error: unknown) => (error as TabgateError).code === 'browser_busy');
  });
});
