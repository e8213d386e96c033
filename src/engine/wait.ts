/**
 * browser_wait_for: polls the page every few tens of milliseconds until the text appears, the text is
 * gone, or the ref's element is gone (removed or without a box), whichever were asked, all of them
 * holding at once; or simply waits the seconds. Bounded by the protocol's 30 s and the command timeout.
 */
import { TabgateError } from '../protocol/index.js';
import type { PageAgent } from './frame-worlds.js';
import type { Tab } from './tab.js';

const POLL_MS = 40;

export interface WaitCondition {
  text?: string;
  textGone?: string;
  refGone?: string;
  seconds?: number;
}

function pageHasText(_agent: PageAgent, text: string): boolean {
  const body = document.body;
  if (!body) return false;
  const seen = body.innerText.replace(/\s+/g, ' ');
  return seen.includes(text.replace(/\s+/g, ' ').trim());
}

function pageElementGone(agent: PageAgent, id: number): boolean {
  const el = agent.lookup(id);
  return !el || el.getClientRects().length === 0;
}

async function textInAnyFrame(tab: Tab, text: string): Promise<boolean> {
  const frames = await tab.frames();
  for (const [frameId, entry] of frames) {
    try {
      const contextId = await entry.worlds.contextFor(frameId);
      if (await entry.worlds.call(contextId, pageHasText, text)) return true;
    } catch {
      // A frame that went away while we looked has no text.
    }
  }
  return false;
}

async function refGone(tab: Tab, ref: string): Promise<boolean> {
  const binding = tab.refs.lookup(ref);
  if (!binding || !binding.worlds.isAlive(binding.contextId)) return true;
  try {
    return await binding.worlds.call(binding.contextId, pageElementGone, binding.localId);
  } catch {
    return true;
  }
}

async function holds(tab: Tab, condition: WaitCondition): Promise<boolean> {
  if (condition.refGone && !(await refGone(tab, condition.refGone))) return false;
  if (condition.text && !(await textInAnyFrame(tab, condition.text))) return false;
  if (condition.textGone && (await textInAnyFrame(tab, condition.textGone))) return false;
  return true;
}

/** Resolves with the milliseconds waited; `wait_timeout` when the condition never held. */
export async function waitFor(tab: Tab, condition: WaitCondition, timeoutMs: number): Promise<number> {
  const started = Date.now();
  const onlySeconds = !condition.text && !condition.textGone && !condition.refGone;
  const limit = Math.min(
    timeoutMs,
    onlySeconds ? (condition.seconds ?? 0) * 1000 : (condition.seconds ?? 30) * 1000,
  );
  if (onlySeconds) {
    await tab.waitUntil(() => tab.dialogs.open !== null, limit);
    return Date.now() - started;
  }
  for (;;) {
    if (tab.dialogs.open) return Date.now() - started;
    const met = await tab.dialogs.unlessDialog(holds(tab, condition), true);
    if (met) return Date.now() - started;
    const elapsed = Date.now() - started;
    if (elapsed >= limit) {
      const what = [
        condition.text && `text ${JSON.stringify(condition.text)} to appear`,
        condition.textGone && `text ${JSON.stringify(condition.textGone)} to go`,
        condition.refGone && `${condition.refGone} to go`,
      ]
        .filter(Boolean)
        .join(' and ');
      throw new TabgateError(
        'wait_timeout',
        `Waited ${Math.round(elapsed / 100) / 10} s for ${what}; it did not happen.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, limit - elapsed)));
  }
}
