/**
 * Screenshots: PNG or JPEG of the viewport, of the whole page scaled down to a pixel budget, or of one
 * element (inside same- and cross-origin iframes too); refused when even that would be too large for a response. Secret fields (vault-filled,
 * password, card, one-time code) are painted over in every frame of every one, and `annotate` labels the interactive elements with their refs
 * (screenshot-overlays.ts).
 */
import { TabgateError, type ScreenshotResult } from '../protocol/index.js';
import { bindingOf } from './actions.js';
import { staleError } from './frame-worlds.js';
import {
  LABEL_COLOUR,
  pageAddOverlays,
  pageElementBox,
  pageFrameContent,
  pageRemoveOverlays,
  pageViewportBox,
} from './screenshot-overlays.js';
import type { RefBinding } from './refs.js';
import { snapshotTab } from './snapshot.js';
import type { Tab } from './tab.js';

const MAX_PIXELS = 4_000_000;
const MAX_SIDE = 16_000;
/** About 6 MB of image, as base64. */
const MAX_BASE64 = 8_000_000;

/** As the catalog's schema let them through: a quality only with jpeg, a ref or the full page. */
export interface ScreenshotOptions {
  fullPage?: boolean;
  ref?: string;
  format?: 'png' | 'jpeg';
  quality?: number;
  annotate?: boolean;
}

type Clip = { x: number; y: number; width: number; height: number; scale: number };

async function clipOf(tab: Tab, options: ScreenshotOptions): Promise<Clip | null> {
  if (options.ref) {
    const binding = bindingOf(tab, options.ref);
    const box =
      binding.ancestors.length > 0
        ? await boxThroughFrames(binding)
        : await binding.worlds.call(binding.contextId, pageElementBox, binding.localId);
    if (!box) throw staleError();
    if (box.width < 1 || box.height < 1)
      throw new TabgateError('element_not_interactable', `${options.ref} has no visible box.`);
    const scale = Math.min(1, Math.sqrt(MAX_PIXELS / (box.width * box.height)));
    return { ...box, scale };
  }
  if (!options.fullPage) return null;
  const metrics = await tab.page.send<{ cssContentSize: { width: number; height: number } }>(
    'Page.getLayoutMetrics',
  );
  const width = Math.max(1, Math.ceil(metrics.cssContentSize.width));
  const height = Math.max(1, Math.ceil(metrics.cssContentSize.height));
  const scale = Math.min(1, Math.sqrt(MAX_PIXELS / (width * height)), MAX_SIDE / width, MAX_SIDE / height);
  return { x: 0, y: 0, width, height, scale };
}

type Box = { x: number; y: number; width: number; height: number };

/**
 * The box of an element inside iframes, in the top page's coordinates: its box in its own frame's
 * viewport, cut to what each iframe shows of its document and moved by where each iframe draws it,
 * innermost first; the top page's scroll last. Every frame is scrolled so the element is in view,
 * outermost first, as a click does. A cut that leaves nothing is a box of zero size.
 */
async function boxThroughFrames(binding: RefBinding): Promise<Box | null> {
  for (const frame of binding.ancestors) {
    if (!(await frame.worlds.call(frame.contextId, pageFrameContent, frame.localId))) return null;
  }
  let box = await binding.worlds.call(binding.contextId, pageViewportBox, binding.localId);
  let scroll = { x: 0, y: 0 };
  // Read again, innermost first, now that every frame inside has scrolled too.
  for (const frame of [...binding.ancestors].reverse()) {
    const content = await frame.worlds.call(frame.contextId, pageFrameContent, frame.localId);
    if (!box || !content) return null;
    const left = Math.max(box.x, 0);
    const top = Math.max(box.y, 0);
    const right = Math.min(box.x + box.width, content.width);
    const bottom = Math.min(box.y + box.height, content.height);
    box = {
      x: content.x + left,
      y: content.y + top,
      width: Math.max(0, right - left),
      height: Math.max(0, bottom - top),
    };
    scroll = { x: content.scrollX, y: content.scrollY };
  }
  return box && { ...box, x: box.x + scroll.x, y: box.y + scroll.y };
}

/** The refs of the main frame's interactive elements, freshly minted. */
async function labelsOf(tab: Tab): Promise<{ ref: string; id: number }[]> {
  await snapshotTab(tab, false);
  const contextId = await tab.pageWorlds.contextFor(tab.mainFrameId);
  const labels: { ref: string; id: number }[] = [];
  for (const [ref, binding] of tab.refs.entries()) {
    if (
      binding.ancestors.length === 0 &&
      binding.worlds === tab.pageWorlds &&
      binding.contextId === contextId
    )
      labels.push({ ref, id: binding.localId });
  }
  return labels;
}

/**
 * Masks the secret fields of every frame but the main one (in-process and out-of-process iframes draw
 * into the same capture), adding how to unmask each to `unmask`.
 */
async function maskFrames(tab: Tab, unmask: (() => Promise<unknown>)[]): Promise<number> {
  const frames = [...(await tab.frames())].filter(([frameId]) => frameId !== tab.mainFrameId);
  const counts = await Promise.all(
    frames.map(async ([frameId, { worlds }]) => {
      try {
        const contextId = await worlds.contextFor(frameId);
        unmask.push(() => worlds.call(contextId, pageRemoveOverlays, null));
        const { masked } = await worlds.call(contextId, pageAddOverlays, {
          labels: [],
          colour: LABEL_COLOUR,
        });
        return masked;
      } catch (error) {
        // Fail closed: only a frame that has gone since is left unmasked (there is nothing of it to show).
        if ((await tab.frames()).has(frameId)) throw error;
        return 0;
      }
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

export async function screenshot(tab: Tab, options: ScreenshotOptions = {}): Promise<ScreenshotResult> {
  const format = options.format ?? 'png';
  const clip = await clipOf(tab, options);
  const labels = options.annotate ? await labelsOf(tab) : [];
  const contextId = await tab.pageWorlds.contextFor(tab.mainFrameId);
  const overlays = await tab.pageWorlds.call(contextId, pageAddOverlays, { labels, colour: LABEL_COLOUR });
  let data: string;
  const framesMasked: (() => Promise<unknown>)[] = [];
  try {
    overlays.masked += await maskFrames(tab, framesMasked);
    const params = {
      format,
      ...(format === 'jpeg' ? { quality: options.quality ?? 80 } : {}),
      ...(clip ? { clip, captureBeyondViewport: true } : {}),
    };
    ({ data } = await tab.page.send<{ data: string }>('Page.captureScreenshot', params));
  } finally {
    await tab.pageWorlds.call(contextId, pageRemoveOverlays, null).catch(() => undefined);
    await Promise.all(framesMasked.map((unmask) => unmask().catch(() => undefined)));
  }
  if (data.length > MAX_BASE64) {
    throw new TabgateError(
      'screenshot_too_large',
      `The screenshot is ${Math.round((data.length * 3) / 4 / 1e6)} MB, over the limit.`,
    );
  }
  const { width, height } = format === 'png' ? pngSize(data) : jpegSize(data);
  const result: ScreenshotResult = {
    mime_type: format === 'png' ? 'image/png' : 'image/jpeg',
    data,
    width,
    height,
    full_page: options.fullPage === true,
  };
  if (overlays.masked > 0) result.masked = overlays.masked;
  if (options.annotate) {
    const scale = clip ? clip.scale : 1;
    const origin = clip ? { x: clip.x, y: clip.y } : { x: 0, y: 0 };
    result.labels = overlays.boxes.map((box) => ({
      ref: box.ref,
      x: Math.round((box.x - (clip ? origin.x : 0)) * scale),
      y: Math.round((box.y - (clip ? origin.y : 0)) * scale),
      width: Math.round(box.width * scale),
      height: Math.round(box.height * scale),
    }));
  }
  return result;
}

/** Width and height from the PNG's IHDR chunk (bytes 16–23). */
export function pngSize(base64: string): { width: number; height: number } {
  const head = Uint8Array.from(atob(base64.slice(0, 32)), (c) => c.charCodeAt(0));
  const view = new DataView(head.buffer);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** Width and height from the JPEG's first start-of-frame marker. */
export function jpegSize(base64: string): { width: number; height: number } {
  const bytes = Uint8Array.from(atob(base64.slice(0, 4096)), (c) => c.charCodeAt(0));
  for (let i = 2; i + 9 < bytes.length;) {
    if (bytes[i] !== 0xff) break;
    const marker = bytes[i + 1] ?? 0;
    const length = ((bytes[i + 2] ?? 0) << 8) | (bytes[i + 3] ?? 0);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return {
        height: ((bytes[i + 5] ?? 0) << 8) | (bytes[i + 6] ?? 0),
        width: ((bytes[i + 7] ?? 0) << 8) | (bytes[i + 8] ?? 0),
      };
    }
    i += 2 + length;
  }
  return { width: 0, height: 0 };
}
