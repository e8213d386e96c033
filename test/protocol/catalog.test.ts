import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CONTROLLER_CAPABILITIES,
  describeTools,
  parseToolArguments,
  TabgateError,
  TOOLS,
} from '../../src/protocol/index.js';

describe('tool catalog', () => {
  it('lists the sorted tool names (adding a tool is a visible diff)', () => {
    assert.deepEqual(TOOLS.map((tool) => tool.name).sort(), [
      'browser_approval_status',
      'browser_back',
      'browser_click',
      'browser_console',
      'browser_dialog',
      'browser_downloads',
      'browser_drag',
      'browser_fill_form',
      'browser_forward',
      'browser_get_images',
      'browser_hover',
      'browser_navigate',
      'browser_press',
      'browser_read',
      'browser_reload',
      'browser_request_takeover',
      'browser_screenshot',
      'browser_scroll',
      'browser_select_option',
      'browser_snapshot',
      'browser_tab_activate',
      'browser_tab_close',
      'browser_tab_new',
      'browser_tabs',
      'browser_type',
      'browser_upload',
      'browser_wait_for',
    ]);
  });

  it('has a tool for every controller capability except the no-op', () => {
    const names = new Set<string>(TOOLS.map((tool) => tool.name));
    for (const capability of CONTROLLER_CAPABILITIES) {
      if (capability !== 'controller.noop') assert.ok(names.has(capability), capability);
    }
  });

  it('derives a closed JSON Schema object for every tool', () => {
    for (const tool of describeTools()) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
      assert.ok(tool.description.length > 20, tool.name);
    }
  });

  it('names the field and what is valid when arguments are wrong', () => {
    assert.throws(
      () => parseToolArguments('browser_scroll', { direction: 'sideways' }),
      (error: unknown) =>
        error instanceof TabgateError &&
        error.code === 'invalid_arguments' &&
        error.message.includes('direction') &&
        error.message.includes('"up"'),
    );
  });

  it('refuses unknown argument keys', () => {
    assert.throws(() => parseToolArguments('browser_back', { target_id: 'x' }), /Unrecognized key/);
  });

  it('treats an absent body as empty arguments', () => {
    assert.deepEqual(parseToolArguments('browser_tabs', undefined), {});
  });
});
