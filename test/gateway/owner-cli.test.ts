/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The owner's commands, run as the owner runs them (the real CLI in another process, the operator key
 * read from the home folder): `tabgate sign-in` prints a working one-time link, and `tabgate session
 * release` is the one way a bound session gets the default backend back — audited, and refused to the
 * agent's API key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestController } from './fixtures/controller.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { RecordingBackend } from './fixtures/recording-backend.js';
import { runTabgate as tabgate } from '../helpers/tabgate-cli.js';

describe("the owner's commands", () => {
  let gw: TestGateway;
  let backend: RecordingBackend;
  before(async () => {
    backend = new RecordingBackend();
    gw = await startTestGateway({ backend });
  });
  after(() => gw.close());

  it('`tabgate sign-in` prints a one-time link whose code signs a browser in once', async () => {
    const run = await tabgate(gw.home, ['sign-in', '--gateway', gw.url, '--next', '/pair/abc']);
    assert.equal(run.code, 0, run.stderr);
    const link = /(http:\/\/\S+)/.exec(run.stdout)?.[1] ?? '';
    assert.ok(link.startsWith(`${gw.url}/operator/sign-in#`), run.stdout);
    const fragment = new URLSearchParams(new URL(link).hash.slice(1));
    assert.equal(fragment.get('next'), '/pair/abc');
    const post = () =>
      gw.request('POST', '/operator/sign-in', {
        body: { code: fragment.get('code') },
        headers: { authorization: '', origin: new URL(gw.url).origin },
      });
    assert.equal((await post()).status, 200);
    assert.equal((await post()).body.error.code, 'sign_in_invalid');
  });

  it('`tabgate session release` unbinds a stopped session, audited; the API key cannot', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    controller.send({ method: 'browser.controller.detach', params: {} });
    await controller.next('browser.controller.detach');
    const call = () => gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_tabs`, { body: {} });
    assert.equal((await call()).body.error.code, 'session_stopped');

    const byAgent = await gw.request('POST', `/v1/sessions/${sessionId}/release`, { body: {} });
    assert.equal(byAgent.status, 403);
    assert.equal(byAgent.body.error.code, 'operator_required');
    assert.equal((await call()).body.error.code, 'session_stopped');

    const run = await tabgate(gw.home, ['session', '--gateway', gw.url, 'release', sessionId]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Released/);
    const before = backend.calls.length;
    assert.equal((await call()).status, 200);
    assert.equal(backend.calls.length, before + 1);
    assert.equal((await gw.request('GET', `/v1/sessions/${sessionId}`)).body.binding, null);
    const audit = await gw.request('GET', `/v1/audit?session=${sessionId}`);
    assert.ok(
      (audit.body.entries as { action: string }[]).some((e) => e.action === 'session.release'),
      JSON.stringify(audit.body),
    );

    const again = await tabgate(gw.home, ['session', '--gateway', gw.url, 'release', sessionId]);
    assert.equal(again.code, 1);
    assert.ok(again.stderr.includes('session_not_bound'), again.stderr);
    await controller.close();
  });

  it('`tabgate pair revoke` of an id no extension was paired under fails, naming the code', async () => {
    const run = await tabgate(gw.home, ['pair', '--gateway', gw.url, 'revoke', 'grant_not_a_real_one']);
    assert.equal(run.code, 1);
    assert.ok(run.stderr.includes('pairing_grant_not_found'), run.stderr);
    assert.match(run.stderr, /No paired extension with id "grant_not_a_real_one"/);
  });
});
