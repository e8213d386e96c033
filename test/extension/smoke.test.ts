import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callTool, shareNewTab, startStage, type Stage } from './fixtures/paired-setup.js';

describe('smoke', () => {
  let stage: Stage;
  before(async () => {
    stage = await startStage();
  });
  after(async () => {
    await stage?.close();
  });
  it('snapshots a shared tab', async () => {
    const { sessionId } = await shareNewTab(stage);
    const result = await callTool(stage, sessionId, 'browser_snapshot');
    console.log(JSON.stringify(result.body).slice(0, 1500));
    assert.equal(result.status, 200);
  });
});
