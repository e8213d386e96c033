/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * Uploads and downloads on the user's own tab, through the real extension in a real Chromium, decided
 * in its popup as a person would. An upload: the gateway reads the file from `browser.upload_roots`, the
 * extension sets it on the page's file input only after Approve (the page sees nothing before, nor after
 * Deny). A download the shared tab starts: held below the page until approved, then kept in the session's
 * folder on the gateway (hashed, served over HTTP), never in the person's own downloads folder; denied,
 * nothing is saved anywhere; one the page makes itself (blob:) is refused.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { USER_TAB_UPLOAD_MAX_BYTES } from '../../src/protocol/index.js';
import { codeOf, sharedTabCalls } from './fixtures/shared-tab-calls.js';
import { inTab, shareBlankTab, startStage, waitFor, type Stage } from './fixtures/paired-setup.js';
import { decideInPopup, openPopup, type PopupPage } from './fixtures/popup-page.js';
import { tempDir } from '../helpers/temp-dir.js';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const fileBytes = (name: string) => Buffer.from(`${name}\n${'0123456789abcdef'.repeat(300)}`);

const UPLOAD_PAGE = `<!doctype html><title>Upload</title>
<label>Document <input type="file" aria-label="Document"></label>
<label>Title <input type="text" aria-label="Title"></label>
<p id="out">no file</p>
<script>
  document.querySelector('input[type=file]').addEventListener('change', async (e) => {
    const parts = [];
    for (const file of e.target.files) {
      const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
      const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
      parts.push(file.name + ' ' + file.size + ' ' + file.type + ' ' + hex);
    }
    await fetch('/received', { method: 'POST', body: parts.join('; ') });
    document.getElementById('out').textContent = 'received ' + parts.join('; ');
  });
</script>`;

const BLOB_PAGE = `<!doctype html><title>Blob</title>
<a id="made" download="made-here.txt">Made here</a>
<script>document.getElementById('made').href = URL.createObjectURL(new Blob(['made in the page']));</script>`;

const DOWNLOAD_PAGE = `<!doctype html><title>Downloads</title>
<a href="/file?name=plain-report.csv">Plain report</a>
<a href="/file?name=denied-report.csv">Secret report</a>
<a href="/file?name=linked-report.csv" download>Linked report</a>`;

interface FileSite {
  url(path: string): string;
  /** What the upload page told the server it received, one entry per change event. */
  received: string[];
  /** The files the server sent. */
  served: string[];
  close(): Promise<void>;
}

async function startFileSite(): Promise<FileSite> {
  const received: string[] = [];
  const served: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/received') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push(body);
        response.writeHead(204).end();
      });
      return;
    }
    if (url.pathname === '/file') {
      const name = (url.searchParams.get('name') ?? 'file.csv').replace(/[^\w.-]/g, '_');
      served.push(name);
      const bytes = fileBytes(name);
      response.writeHead(200, {
        'content-type': 'text/csv',
        'content-length': String(bytes.length),
        'content-disposition': `attachment; filename="${name}"`,
      });
      response.end(bytes);
      return;
    }
    const pages: Record<string, string> = {
      '/upload': UPLOAD_PAGE,
      '/downloads': DOWNLOAD_PAGE,
      '/blob': BLOB_PAGE,
    };
    const page = pages[url.pathname];
    if (!page) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    served,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("uploads and downloads on the user's tab, approved in the popup", () => {
  const scratch = tempDir('user-tab-files');
  const uploadRoot = join(scratch, 'uploads');
  // Chromium on Linux takes its downloads folder from the XDG user dirs: this test's own, empty one.
  const downloadsDir = join(scratch, 'Downloads');
  let site: FileSite;
  let stage: Stage;
  let sid: string;
  let target: string;
  let popup: PopupPage;

  const { call, ok, refOf, pending, pendingApprovals } = sharedTabCalls(
    () => stage,
    () => sid,
  );
  const pageText = async () => (await ok('browser_snapshot', { full: true })).snapshot ?? '';
  const downloadsOnDisk = () => readdirSync(downloadsDir).sort();
  /** What the person would see in their folder: Chrome receives a held download into a hidden file. */
  const savedFiles = () => downloadsOnDisk().filter((name) => !name.startsWith('.'));
  before(async () => {
    mkdirSync(uploadRoot);
    mkdirSync(downloadsDir);
    const xdg = join(scratch, 'xdg');
    mkdirSync(xdg);
    writeFileSync(join(xdg, 'user-dirs.dirs'), `XDG_DOWNLOAD_DIR="${downloadsDir}"\n`);
    process.env.XDG_CONFIG_HOME = xdg;
    site = await startFileSite();
    stage = await startStage({
      config: {
        browser: {
          upload_roots: [uploadRoot],
          extension_control: { enabled: true, command_timeout: 20 },
        },
        safety: { sites: { allow: ['127.0.0.1'] }, approval_timeout_s: 15, approvals: { user_tab: 'all' } },
      },
    });
    const shared = await shareBlankTab(stage, 'files');
    sid = shared.sessionId;
    target = shared.targetId;
    popup = await openPopup(stage.browser, shared.tabId);
  });
  after(async () => {
    await popup?.close();
    await stage?.close();
    await site?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('uploads a file from upload_roots only after the person approves, exactly once; denied, the page sees nothing', async () => {
    const bytes = fileBytes('report.txt');
    const path = join(uploadRoot, 'report.txt');
    writeFileSync(path, bytes);
    for (const decision of ['deny', 'approve'] as const) {
      await ok('browser_navigate', { url: site.url('/upload') });
      const running = call('browser_upload', { ref: await refOf('button "Document"'), paths: [path] });
      const asked = await pending();
      assert.deepEqual(asked.classes, ['upload']);
      assert.match(asked.summary, /upload 1 file\(s\) \("report\.txt"/);
      // Read in the page itself: the session's other calls wait behind this one.
      const whilePending = await inTab<string>(stage, target, 'document.body.innerText');
      assert.match(whilePending, /no file/, `nothing set before the ${decision}`);
      assert.deepEqual(site.received, []);
      await decideInPopup(popup, asked.approval_id, decision);
      const result = await running;
      if (decision === 'deny') {
        assert.equal(codeOf(result), 'approval_denied', JSON.stringify(result.body));
        assert.match(await pageText(), /no file/);
        assert.deepEqual(site.received, [], 'denied: the page got no file');
        continue;
      }
      assert.equal(result.status, 200, JSON.stringify(result.body));
      assert.deepEqual(result.body.result.uploaded, [{ name: 'report.txt', size: bytes.length }]);
      const expected = `report.txt ${bytes.length} text/plain ${sha256(bytes)}`;
      await waitFor('the page to read the file', async () => (await pageText()).includes('received'));
      assert.match(await pageText(), new RegExp(`received ${expected}`));
      assert.deepEqual(site.received, [expected], 'exactly one upload, with the bytes of the file');
    }
    assert.deepEqual(await pendingApprovals(), []);
  });

  it('carries an upload as big as one frame allows, byte for byte', async () => {
    const bytes = Buffer.alloc(USER_TAB_UPLOAD_MAX_BYTES - 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 17) % 256;
    const path = join(uploadRoot, 'large.bin');
    writeFileSync(path, bytes);
    await ok('browser_navigate', { url: site.url('/upload') });
    const before = site.received.length;
    const running = call('browser_upload', { ref: await refOf('button "Document"'), paths: [path] });
    await decideInPopup(popup, (await pending()).approval_id, 'approve');
    const result = await running;
    assert.equal(result.status, 200, JSON.stringify(result.body).slice(0, 500));
    await waitFor('the page to read the file', async () => site.received.length > before);
    assert.deepEqual(site.received.slice(before), [
      `large.bin ${bytes.length} application/octet-stream ${sha256(bytes)}`,
    ]);
  });

  it('refuses a ref that is not a file input and a path outside upload_roots, asking nobody', async () => {
    const outside = join(scratch, 'outside.txt');
    writeFileSync(outside, 'not for the page');
    await ok('browser_navigate', { url: site.url('/upload') });
    const inside = join(uploadRoot, 'report.txt');
    const notFile = await call('browser_upload', { ref: await refOf('textbox "Title"'), paths: [inside] });
    assert.equal(codeOf(notFile), 'element_not_interactable', JSON.stringify(notFile.body));
    const refused = await call('browser_upload', { ref: await refOf('button "Document"'), paths: [outside] });
    assert.equal(codeOf(refused), 'upload_not_allowed', JSON.stringify(refused.body));
    // Within browser.upload_max_mb, but more than one protocol frame carries to the user's tab.
    const big = join(uploadRoot, 'big.bin');
    writeFileSync(big, Buffer.alloc(6 * 1024 * 1024, 1));
    const tooBig = await call('browser_upload', { ref: await refOf('button "Document"'), paths: [big] });
    assert.equal(codeOf(tooBig), 'upload_not_allowed', JSON.stringify(tooBig.body));
    assert.match(String(tooBig.body.error.message), /one protocol frame/);
    assert.deepEqual(await pendingApprovals(), []);
    assert.match(await pageText(), /no file/);
  });

  it('holds a download the tab starts until approved, then keeps it in the session folder; denied, nothing is saved anywhere', async () => {
    await ok('browser_navigate', { url: site.url('/downloads') });
    // A plain link: nothing on the page says it downloads; the response's Content-Disposition does.
    const denied = call('browser_click', { ref: await refOf('link "Secret report"') });
    const askedFirst = await pending();
    assert.deepEqual(askedFirst.classes, ['download']);
    assert.match(askedFirst.summary, /denied-report\.csv/);
    await decideInPopup(popup, askedFirst.approval_id, 'deny');
    const deniedResult = await denied;
    assert.equal(codeOf(deniedResult), 'approval_denied', JSON.stringify(deniedResult.body));

    await ok('browser_navigate', { url: site.url('/downloads') });
    const approved = call('browser_click', { ref: await refOf('link "Plain report"') });
    const asked = await pending();
    assert.deepEqual(asked.classes, ['download']);
    await decideInPopup(popup, asked.approval_id, 'approve');
    const result = await approved;
    assert.equal(result.status, 200, JSON.stringify(result.body));
    const bytes = fileBytes('plain-report.csv');
    // The click that started it reports it, as on every browser: kept by the gateway, hashed.
    const [report] = result.body.result.downloads as Record<string, unknown>[];
    assert.deepEqual(
      { ...report, path: undefined },
      {
        name: 'plain-report.csv',
        size: bytes.length,
        mime: 'text/csv',
        sha256: sha256(bytes),
        path: undefined,
        state: 'complete',
      },
    );
    assert.deepEqual(readFileSync(String(report?.path)), bytes);
    const served = await fetch(`${stage.gw.url}/v1/sessions/${sid}/downloads/plain-report.csv`, {
      headers: { authorization: `Bearer ${stage.gw.key}` },
    });
    assert.equal(served.status, 200);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);

    const { downloads } = (await ok('browser_downloads')) as unknown as {
      downloads: Record<string, unknown>[];
    };
    assert.deepEqual(
      downloads.map((d) => [d.name, d.state, d.reason]),
      [
        ['denied-report.csv', 'stopped', 'denied by the person'],
        ['plain-report.csv', 'complete', undefined],
      ],
    );
    assert.deepEqual(
      readdirSync(dirname(String(report?.path))),
      ['plain-report.csv'],
      'the denied one left nothing',
    );
    assert.deepEqual(downloadsOnDisk(), [], "nothing in the person's own downloads folder");
    assert.deepEqual(site.served.filter((name) => name === 'plain-report.csv').length, 1, 'fetched once');
  });

  it('asks once for a click on a download link: the approved click lets its download through', async () => {
    await ok('browser_navigate', { url: site.url('/downloads') });
    const running = call('browser_click', { ref: await refOf('link "Linked report"') });
    const asked = await pending();
    assert.ok(asked.classes.includes('download'), JSON.stringify(asked.classes));
    await decideInPopup(popup, asked.approval_id, 'approve');
    const result = await running;
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.deepEqual(await pendingApprovals(), [], 'the download was not asked for a second time');
    const [linked] = result.body.result.downloads as { name: string; sha256: string }[];
    assert.equal(linked?.name, 'linked-report.csv');
    assert.equal(linked?.sha256, sha256(fileBytes('linked-report.csv')));
    assert.deepEqual(downloadsOnDisk(), [], "nothing in the person's own downloads folder");
  });

  it('asks for a navigation to a file like any download, and answers it with the file once approved', async () => {
    await ok('browser_navigate', { url: site.url('/downloads') });
    const running = call('browser_navigate', { url: site.url('/file?name=navigated-report.csv') });
    const asked = await pending();
    assert.deepEqual(asked.classes, ['download']);
    await decideInPopup(popup, asked.approval_id, 'approve');
    const result = await running;
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.match(String(result.body.result.url), /\/downloads$/, 'the tab stays on its page');
    const [file] = result.body.result.downloads as { name: string; sha256: string; state: string }[];
    assert.deepEqual(
      [file?.name, file?.state, file?.sha256],
      ['navigated-report.csv', 'complete', sha256(fileBytes('navigated-report.csv'))],
    );
    assert.deepEqual(downloadsOnDisk(), [], "nothing in the person's own downloads folder");
  });

  it('refuses a download the page makes itself (a blob: link), saving it nowhere', async () => {
    await ok('browser_navigate', { url: site.url('/blob') });
    const running = call('browser_click', { ref: await refOf('link "Made here"') });
    const asked = await pending();
    await decideInPopup(popup, asked.approval_id, 'approve');
    const result = await running;
    assert.equal(codeOf(result), 'unsupported_on_backend', JSON.stringify(result.body));
    assert.match(String(result.body.error.message), /blob: or data: URL/);
    const { downloads } = (await ok('browser_downloads')) as unknown as {
      downloads: Record<string, unknown>[];
    };
    const made = downloads.find((d) => d.name === 'made-here.txt');
    assert.equal(made?.state, 'stopped', JSON.stringify(downloads));
    // What Chrome itself says of it, read from an extension page (the agent sees none of it).
    const blob = () =>
      stage.browser.cdp.evaluate<{ state: string } | null>(
        stage.browser.popup,
        `chrome.downloads.search({}).then((all) => all.find((d) => d.url.startsWith('blob:')) ?? null)`,
      );
    await waitFor('Chrome to cancel it', async () => (await blob())?.state === 'interrupted');
    assert.deepEqual(savedFiles(), [], "nothing in the person's own downloads folder");
  });
});
