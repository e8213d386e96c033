/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * `tabgate grants list|add|revoke`, run as the owner runs it: the real CLI in another process, the
 * operator key read from the home folder. The grant shows in the session's policy; a bad site changes
 * nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { RecordingBackend } from './fixtures/recording-backend.js';
import { runTabgate as tabgate } from '../helpers/tabgate-cli.js';

describe('tabgate grants', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ backend: new RecordingBackend() });
  });
  after(() => gw.close());

  it('grants, lists and revokes a site of a session as the owner', async () => {
    const sessionId = await gw.createSession();
    const grants = (...args: string[]) => tabgate(gw.home, ['grants', '--gateway', gw.url, ...args]);
    const added = await grants('add', sessionId, 'HTTPS://Mail.Example.com/');
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /Granted https:\/\/mail\.example\.com/);
    const listed = await grants('list', sessionId);
    assert.match(listed.stdout, /granted: +https:\/\/mail\.example\.com/);
    assert.deepEqual((await gw.request('GET', `/v1/sessions/${sessionId}`)).body.sites.granted, [
      'https://mail.example.com',
    ]);
    const bad = await grants('add', sessionId, 'https://example.com/path');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /without a path.*\(invalid_request\)/);
    assert.equal((await grants('revoke', sessionId, 'https://mail.example.com')).code, 0);
    assert.deepEqual((await gw.request('GET', `/v1/sessions/${sessionId}`)).body.sites.granted, []);
    // Each change, the refused one too, is in the audit log as the owner's.
    const audit = await gw.request('GET', `/v1/audit?session=${sessionId}`);
    const rows = audit.body.entries as { action: string; arguments: unknown; outcome: string }[];
    assert.deepEqual(
      rows.map((row) => [row.action, row.arguments, row.outcome]),
      [
        ['site.grant', { site: 'HTTPS://Mail.Example.com/', channel: 'owner' }, 'ok'],
        ['site.grant', { site: 'https://example.com/path', channel: 'owner' }, 'invalid_request'],
        ['site.revoke', { site: 'https://mail.example.com', channel: 'owner' }, 'ok'],
      ],
    );
  });
});
