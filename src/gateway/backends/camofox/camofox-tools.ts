/**
 * The tools Camofox has a call for, each mapped onto that call on the session's tab. What Camofox
 * cannot do as asked (another button, a modifier, a sideways scroll) is refused with
 * `unsupported_on_backend`, never done differently.
 */
import { TabgateError, type ToolName } from '../../../protocol/index.js';
import type { ToolCall } from '../backend.js';
import { snapshotResult, type CamofoxSnapshot } from './camofox-snapshot.js';
import type { CamofoxTab } from './camofox-tab.js';

/** The tools Camofox has a call for; everything else is refused. */
export const CAMOFOX_TOOLS: ReadonlySet<ToolName> = new Set<ToolName>([
  'browser_navigate',
  'browser_snapshot',
  'browser_click',
  'browser_type',
  'browser_press',
  'browser_scroll',
  'browser_back',
]);

/** The reference scrolls 5 × Camofox's step per browser_scroll; tabgate's default is one viewport. */
const DEFAULT_SCROLL_PX = 500;

/** What the backend does around a tool: the checks before a navigation, the judging of a page read. */
export interface CamofoxPages {
  navigate(tab: CamofoxTab, url: string): Promise<unknown>;
  /** The tab's page, read and judged against the session's site rules before the agent sees it. */
  judged(tab: CamofoxTab): Promise<CamofoxSnapshot>;
  snapshotMaxChars(): number;
}

export async function runCamofoxTool(tab: CamofoxTab, call: ToolCall, pages: CamofoxPages): Promise<unknown> {
  const args = call.args as Record<string, unknown>;
  switch (call.tool) {
    case 'browser_navigate':
      return pages.navigate(tab, String(args.url));
    case 'browser_snapshot':
      return snapshotResult(
        await pages.judged(tab),
        pages.snapshotMaxChars(),
        typeof args.offset === 'number' ? args.offset : 0,
      );
    case 'browser_click': {
      // Camofox clicks once with the left button: any other click is refused, never done differently.
      if ((args.button !== undefined && args.button !== 'left') || args.double === true)
        throw new TabgateError('unsupported_on_backend', 'Camofox clicks once, with the left button only.');
      if (Array.isArray(args.modifiers) && args.modifiers.length > 0)
        throw new TabgateError('unsupported_on_backend', 'Camofox clicks without modifier keys.');
      await tab.onRef('click', String(args.ref), {});
      return { clicked: String(args.ref) };
    }
    case 'browser_type': {
      const submit = args.submit === true;
      await tab.onRef('type', String(args.ref), { text: args.text, pressEnter: submit });
      return { typed_into: String(args.ref), submitted: submit };
    }
    case 'browser_press': {
      if (Array.isArray(args.modifiers) && args.modifiers.length > 0)
        throw new TabgateError('unsupported_on_backend', 'Camofox presses single keys, without modifiers.');
      await tab.act('press', { key: args.key });
      return { pressed: String(args.key) };
    }
    case 'browser_scroll': {
      const direction = String(args.direction);
      if (direction !== 'up' && direction !== 'down')
        throw new TabgateError('unsupported_on_backend', 'Camofox scrolls up or down only.');
      const amount = typeof args.amount === 'number' ? args.amount : DEFAULT_SCROLL_PX;
      await tab.act('scroll', { direction, amount });
      // Camofox does not report the scroll position (the result schema allows null for this).
      return { scrolled: direction, scroll_x: null, scroll_y: null };
    }
    default: {
      // No page yet is no previous page either: the same answer as every other backend's.
      if (!tab.tabId) throw new TabgateError('no_history', 'This tab has no previous page to go back to.');
      await tab.act('back', {});
      const page = await pages.judged(tab);
      return { url: page.url ?? '', title: page.title ?? '' };
    }
  }
}
