import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageSnapshot } from '../../src/engine/index.js';
import { renderToolResult } from '../../src/gateway/mcp/render.js';

describe('MCP rendering of snapshots', () => {
  it('a cut snapshot carries one note on how to read on, the pager’s', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(30)}`).join('\n');
    const page = { ...pageSnapshot(text, 0, 1000), url: 'http://a.test/', title: 'A', ref_count: 0 };
    const [content] = renderToolResult('browser_snapshot', page).content;
    assert.equal(content?.type, 'text');
    const rendered = content?.type === 'text' ? content.text : '';
    assert.equal(rendered.match(/read on/g)?.length, 1);
    assert.match(rendered, /^Page: A — http:\/\/a\.test\/\n/);
    assert.ok(rendered.endsWith(`offset=${page.next_offset} to read on.`));
  });
});
