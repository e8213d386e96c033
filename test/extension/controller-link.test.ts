/**
 * The extension's controller link in Node, against a real gateway over real HTTP and WebSocket, with a
 * stand-in for chrome.storage. It stages what a browser makes rare and a loaded machine makes happen:
 * the wake alarm's connect is still registering when the person stops one share and starts the next.
 * That connect belongs to the old share; the new share must end with its own socket, never the old one's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocketImpl from 'ws';
import { EXTENSION_ORIGIN, REGISTER_PATH } from '../../src/protocol/index.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { pairedToken } from './pairing-helpers.js';
import { storageArea, type Store } from './fixtures/storage-area.js';

const local: Store = new Map();
const session: Store = new Map();
(globalThis as Record<string, unknown>).chrome = {
  storage: { local: storageArea(local), session: storageArea(session) },
  runtime: { getManifest: () => ({ version: '0.0.0-test' }) },
};
// A browser sends the extension's Origin on its own; Node has to be told.
class ExtensionSocket extends WebSocketImpl {
  constructor(url: string, protocols: string[]) {
    super(url, protocols, { origin: EXTENSION_ORIGIN });
  }
}
(globalThis as Record<string, unknown>).WebSocket = ExtensionSocket;

/** Registrations wait here while `held` is set, so a test can act while one is in flight. */
let held: Promise<void> | null = null;
const nodeFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  if (held && url.endsWith(REGISTER_PATH)) await held;
  const headers = new Headers(init?.headers);
  headers.set('origin', EXTENSION_ORIGIN);
  return nodeFetch(input, { ...init, headers });
};

const { ControllerLink } = await import('../../src/extension/background/controller-link.js');
const { readSession, writeLocal, writeSession } =
  await import('../../src/extension/background/durable-state.js');

function shareOf(sessionId: string) {
  return {
    session_id: sessionId,
    title: null,
    tab_ids: [7],
    active_tab_id: 7,
    group_id: null,
    shared_origin: 'https://shop.example',
  };
}

describe("the extension's controller link", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
    const { token } = await pairedToken(gw);
    await writeLocal('gateway_url', gw.url);
    await writeLocal('pairing', { token, grant_id: 'grant', name: 'test browser' });
  });
  after(async () => {
    globalThis.fetch = nodeFetch;
    await gw.close();
  });

  it('connects the new share, not the one stopped while its connect was still registering', async (t) => {
    const link = new ControllerLink({
      onCommand: () => undefined,
      onCancel: () => undefined,
      onRefused: () => Promise.resolve(),
    });
    const first = await gw.createSession('first share');
    const second = await gw.createSession('second share');
    await writeLocal('share', shareOf(first));
    let release!: () => void;
    held = new Promise<void>((resolve) => (release = resolve));
    // The wake alarm's attempt, now waiting on its registration.
    const stale = link.ensure('alarm');

    // The person stops that share and shares another tab with the second session, as the popup does.
    await link.stop();
    await writeLocal('share', null);
    await writeLocal('share', shareOf(second));
    await writeSession('status', { state: 'idle', error: null, attempt: 0 });
    const fresh = link.ensure('share');
    release();
    held = null;
    await Promise.all([stale, fresh]);
    t.after(() => link.stop());

    const binding = async (id: string) =>
      ((await gw.request('GET', `/v1/sessions/${id}`)).body as { binding: { state: string } | null }).binding
        ?.state ?? 'unbound';
    await waitFor(async () => (await binding(second)) === 'bound', {
      what: 'the second session to be bound',
    });
    assert.equal(link.open, true);
    assert.equal((await readSession('status')).state, 'connected');
    assert.equal(await binding(first), 'unbound', 'the stopped share got a controller');
  });
});
