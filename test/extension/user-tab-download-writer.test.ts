/**
 * The gateway's half of downloads on the user's tab (src/gateway/user-tab-downloads.ts): what the
 * extension streams lands in the session's own folder only, under a safe name, capped and hashed, and a
 * download that is stopped, out of order or abandoned leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DOWNLOAD_CHUNK_BYTES, type DownloadParams } from '../../src/protocol/index.js';
import { UserTabDownloads } from '../../src/gateway/user-tab-downloads.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = tempDir('user-tab-downloads');
const MAX = 2 * DOWNLOAD_CHUNK_BYTES + 10;
const writer = new UserTabDownloads(root, MAX);
const owner = {};
const newId = () => randomBytes(16).toString('hex');
/** Everything in the session's folder, dot files (parts) included. */
const folder = (session: string) => {
  try {
    return readdirSync(join(root, session)).sort();
  } catch {
    return [];
  }
};

async function stream(session: string, name: string, bytes: Buffer, extra: Partial<DownloadParams> = {}) {
  const id = newId();
  let last;
  for (let seq = 0, at = 0; at < bytes.length || seq === 0; seq++, at += DOWNLOAD_CHUNK_BYTES) {
    const part = bytes.subarray(at, at + DOWNLOAD_CHUNK_BYTES);
    last = await writer.receive(session, owner, {
      download_id: id,
      seq,
      ...(seq === 0 ? { name } : {}),
      data_base64: part.toString('base64'),
      ...(at + DOWNLOAD_CHUNK_BYTES >= bytes.length ? { end: true } : {}),
      ...extra,
    });
    if (!last.ok) break;
  }
  return last;
}

describe("the gateway's writer of downloads from the user's tab", () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  it('writes the chunks into the session folder under a safe name, hashed, and never over another', async () => {
    const bytes = randomBytes(DOWNLOAD_CHUNK_BYTES + 1234);
    const first = await stream('s1', '../../outside/report.csv', bytes);
    assert.equal(first?.ok, true);
    assert.equal(first?.info?.state, 'complete');
    assert.equal(first?.info?.sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(first?.info?.size, bytes.length);
    assert.equal(dirname(first?.info?.path ?? ''), join(root, 's1'), 'inside the session folder');
    assert.deepEqual(readFileSync(first?.info?.path ?? ''), bytes);
    const second = await stream('s1', '../../outside/report.csv', Buffer.from('again'));
    assert.notEqual(second?.info?.name, first?.info?.name);
    assert.deepEqual(folder('s1'), [first?.info?.name, second?.info?.name].sort());
    assert.deepEqual(readdirSync(root), ['s1'], 'nothing written outside the session folder');
  });

  it('stops a download past browser.download_max_mb, announced or not, and keeps nothing of it', async () => {
    const announced = await writer.receive('s2', owner, {
      download_id: newId(),
      seq: 0,
      name: 'big.bin',
      expected_size: MAX + 1,
      data_base64: '',
    });
    assert.equal(announced.ok, false);
    assert.match(announced.info?.reason ?? '', /browser\.download_max_mb/);
    const streamed = await stream('s2', 'big.bin', randomBytes(MAX + 1));
    assert.equal(streamed?.ok, false);
    assert.equal(streamed?.info?.state, 'stopped');
    assert.match(streamed?.info?.reason ?? '', /browser\.download_max_mb/);
    assert.deepEqual(folder('s2'), []);
  });

  it('drops a download whose chunks come out of order, or whose controller went away', async () => {
    const id = newId();
    await writer.receive('s3', owner, { download_id: id, seq: 0, name: 'a.txt', data_base64: 'YQ==' });
    const skipped = await writer.receive('s3', owner, { download_id: id, seq: 2, data_base64: 'YQ==' });
    assert.equal(skipped.ok, false);
    assert.match(skipped.info?.reason ?? '', /out of order/);
    assert.deepEqual(folder('s3'), []);

    const other = {};
    const left = newId();
    await writer.receive('s3', other, { download_id: left, seq: 0, name: 'b.txt', data_base64: 'YQ==' });
    const stolen = await writer.receive('s3', owner, { download_id: left, seq: 1, data_base64: 'YQ==' });
    assert.equal(stolen.ok, false, "another controller's download is not written to");
    assert.equal(folder('s3').length, 1, 'the part of the download under way');
    await writer.abandonAll(other);
    assert.deepEqual(folder('s3'), []);
  });
});
