/**
 * How a CDP command's failure is classified, once, at the transport, and what a page session does with a
 * refusal made while the page was between two documents (the command never ran: it is sent again). The
 * transport here is scripted: these are the browser's own answers, replayed; the same cases run against
 * real Chromium in the conformance suite (a navigation that failed, then the next call at once).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CdpError,
  CdpEventHub,
  CdpSession,
  cdpErrorFromResponse,
  isCdpFailure,
  type CdpTransport,
} from '../../src/engine/index.js';

const NOT_ATTACHED = { code: -32000, message: 'Not attached to an active page' };

/** A transport that answers each command with the next scripted reply: an error response, or a result. */
function scripted(
  replies: ({ code: number; message: string } | object)[],
): CdpTransport & { sent: string[] } {
  const hub = new CdpEventHub();
  const sent: string[] = [];
  return {
    sent,
    closed: false,
    on: (event, listener) => hub.on(event, listener),
    onClose: (listener) => hub.onClose(listener),
    send(method) {
      sent.push(method);
      const reply = replies.shift();
      if (reply === undefined) return Promise.reject(new Error('no reply scripted'));
      return 'message' in reply
        ? Promise.reject(cdpErrorFromResponse(method, reply))
        : Promise.resolve(reply);
    },
  };
}

describe('CDP failures', () => {
  it("tells the browser's refusals apart by what they mean", () => {
    const kind = (message: string) => cdpErrorFromResponse('Page.x', { code: -32000, message }).failure;
    assert.equal(kind('Not attached to an active page'), 'between_documents');
    assert.equal(kind('Cannot find context with specified id'), 'stale_context');
    assert.equal(kind('No session with given id'), 'closed');
    assert.equal(kind('Invalid parameters'), 'protocol');
  });

  it('sends a command again that the page refused while between two documents', async () => {
    const transport = scripted([NOT_ATTACHED, NOT_ATTACHED, { currentIndex: 0, entries: [] }]);
    const history = await new CdpSession(transport, 'page').send('Page.getNavigationHistory');
    assert.deepEqual(history, { currentIndex: 0, entries: [] });
    assert.deepEqual(transport.sent, Array(3).fill('Page.getNavigationHistory'));
  });

  it('never sends again a command the browser refused for any other reason', async () => {
    for (const refusal of [
      { code: -32602, message: 'Invalid parameters' },
      { code: -32000, message: 'Cannot find context with specified id' },
    ]) {
      const transport = scripted([refusal, {}]);
      await assert.rejects(new CdpSession(transport, 'page').send('Runtime.evaluate'), (error: unknown) => {
        assert.ok(error instanceof CdpError && !isCdpFailure(error, 'between_documents'));
        return true;
      });
      assert.equal(transport.sent.length, 1);
    }
  });
});
