/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
/** `GET /v1/sessions/{id}/downloads/{name}`: a session's downloaded file, for its owner only. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { downloadBytes } from '../testserver/task-pages.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';

describe('GET /v1/sessions/{id}/downloads/{name}', () => {
  let gw: TestGateway;
  let site: TestSite;
  let sessionId: string;

  before(async () => {
    site = await startTestSite();
    gw = await startTestGateway({ config: { browser: { download_max_mb: 1 } } });
    sessionId = await gw.createSession();
    const tool = (name: string, body: unknown) =>
      gw.request('POST', `/v1/sessions/${sessionId}/tools/${name}`, { body });
    const opened = await tool('browser_navigate', { url: site.url('/tasks/downloads') });
    const ref = /link "Small report" (@e\d+)/.exec(opened.body.result.snapshot.snapshot)?.[1];
    await tool('browser_click', { ref });
    const listed = await tool('browser_downloads', {});
    assert.equal(listed.body.result.downloads[0]?.name, 'report.csv');
  });
  after(async () => {
    await gw.close();
    await site.close();
  });

  it("serves the file's exact bytes with its type to the session's owner", async () => {
    const response = await fetch(`${gw.url}/v1/sessions/${sessionId}/downloads/report.csv`, {
      headers: { authorization: `Bearer ${gw.key}` },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/csv');
    const bytes = Buffer.from(await response.arrayBuffer());
    const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    assert.equal(hash(bytes), hash(downloadBytes(5000)));
  });

  it('answers 404 download_not_found for another name, a path or a session it does not have', async () => {
    for (const name of ['missing.csv', '..%2Fstate.db', '.hidden']) {
      const result = await gw.request('GET', `/v1/sessions/${sessionId}/downloads/${name}`);
      assert.equal(result.status, 404, name);
      assert.equal(result.body.error.code, 'download_not_found');
    }
    const other = await gw.request('GET', `/v1/sessions/not-a-session/downloads/report.csv`);
    assert.equal(other.body.error.code, 'session_not_found');
  });

  it('refuses a caller without the key', async () => {
    const response = await fetch(`${gw.url}/v1/sessions/${sessionId}/downloads/report.csv`);
    assert.equal(response.status, 401);
  });
});
