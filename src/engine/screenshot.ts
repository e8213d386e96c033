/**
 * Screenshots: PNG of the viewport, or of the whole page scaled down to a pixel budget, and refused
 * when even that would be too large for a response.
 */
import { TabgateError, type ScreenshotResult } from '../protocol/index.js';
import type { Tab } from './tab.js';

const MAX_PIXELS = 4_000_000;
const MAX_SIDE = 16_000;
/** About 6 MB of PNG, as base64. */
const MAX_BASE64 = 8_000_000;

export async function screenshot(tab: Tab, fullPage: boolean): Promise<ScreenshotResult> {
  let params: object = { format: 'png' };
  if (fullPage) {
    const metrics = await tab.page.send<{ cssContentSize: { width: number; height: number } }>(
      'Page.getLayoutMetrics',
    );
    const width = Math.max(1, Math.ceil(metrics.cssContentSize.width));
    const height = Math.max(1, Math.ceil(metrics.cssContentSize.height));
    const scale = Math.min(1, Math.sqrt(MAX_PIXELS / (width * height)), MAX_SIDE / width, MAX_SIDE / height);
    params = { format: 'png', captureBeyondViewport: true, clip: { x: 0, y: 0, width, height, scale } };
  }
  const { data } = await tab.page.send<{ data: string }>('Page.captureScreenshot', params);
  if (data.length > MAX_BASE64) {
    throw new TabgateError(
      'screenshot_too_large',
      `The screenshot is ${Math.round((data.length * 3) / 4 / 1e6)} MB, over the limit.`,
    );
  }
  const { width, height } = pngSize(data);
  return { mime_type: 'image/png', data, width, height, full_page: fullPage };
}

/** Width and height from the PNG's IHDR chunk (bytes 16–23). */
export function pngSize(base64: string): { width: number; height: number } {
  const head = Uint8Array.from(atob(base64.slice(0, 32)), (c) => c.charCodeAt(0));
  const view = new DataView(head.buffer);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
