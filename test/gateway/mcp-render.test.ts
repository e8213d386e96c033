import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageSnapshot } from '../../src/engine/index.js';
import { Slots } from '../../src/gateway/backends/admission.js';
import { renderToolError, renderToolResult } from '../../src/gateway/mcp/render.js';
import type { NavigateResult } from '../../src/protocol/index.js';

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

describe('MCP rendering of a navigation', () => {
  it('names each page a redirect passed through and how it sent the browser on', () => {
    const snapshot = {
      ...pageSnapshot('# Final', 0, 1000),
      url: 'http://a.test/final',
      title: 'F',
      ref_count: 0,
    };
    const result: NavigateResult = {
      url: 'http://a.test/final',
      title: 'F',
      status: 200,
      redirects: [
        { url: 'http://a.test/login', via: 'http', status: 302 },
        { url: 'http://b.test/sso', via: 'meta_refresh' },
      ],
      snapshot,
    };
    const [content] = renderToolResult('browser_navigate', result).content;
    assert.equal(
      content?.type === 'text' ? content.text.split('\n')[0] : '',
      'Navigated to http://a.test/final (HTTP 200), redirected from: http://a.test/login (HTTP 302) → http://b.test/sso (meta refresh)',
    );
  });
});

describe('MCP rendering of a refusal', () => {
  it('browser_busy is a tool error whose message says when to retry', async () => {
    const slots = new Slots({
      what: 'open browser sessions',
      limit: 1,
      queueLength: 0,
      retryAfterSeconds: 10,
    });
    await slots.acquire(Date.now());
    const refused = await slots.acquire(Date.now()).catch((error: unknown) => error);
    const result = renderToolError(refused);
    assert.equal(result.isError, true);
    const [content] = result.content;
    assert.match(content?.type === 'text' ? content.text : '', /^Error browser_busy: .*retry in 10 s/);
  });
});
