/**
 * The engine side of a snapshot: walk every frame of the tab with our page-side walker, splice child
 * frames (same-process and out-of-process) in under their iframe line, and turn the walker's markers
 * into session-wide refs (`@eN`).
 */
import { TabgateError } from '../protocol/index.js';
import type { FrameEntry, Tab } from './tab.js';
import type { WorldNode } from './refs.js';
import type { ControlSpan } from './snapshot-pager.js';
import type { TabSnapshot, WalkedSnapshot } from './snapshot-walk.js';
import { escapeBoundaries } from './page-text-boundary.js';

const MAX_FRAMES = 50;

export type { TabSnapshot, WalkedSnapshot } from './snapshot-walk.js';

/** How long a snapshot waits for a document that replaced the one it was reading. */
const RELOAD_WAIT_MS = 10_000;
const ATTEMPTS = 3;

/**
 * A snapshot reads whatever document is current. When the page navigates while we walk it (a form
 * submitted by the previous action, a redirect), our world in the old document vanishes: that is not
 * the agent's stale ref, so wait for the new document and read that one instead.
 */
export async function snapshotTab(tab: Tab, full: boolean): Promise<TabSnapshot> {
  for (let attempt = 1; ; attempt++) {
    try {
      const walked = await walkTab(tab, full);
      tab.lastWalk = walked;
      return walked;
    } catch (error) {
      if (attempt >= ATTEMPTS || !(error instanceof TabgateError && error.code === 'stale_ref')) throw error;
      await tab.waitUntil(() => !tab.loading, RELOAD_WAIT_MS);
    }
  }
}

/**
 * The tab's last walk if nothing it showed can have changed since (every frame it walked still has the
 * same document and the same change count, counted in the page: `agent-state.ts`), else a new walk.
 * Reading on through a long snapshot so costs one cheap call per frame instead of a walk per answer,
 * and every answer of it pages the same text.
 */
export async function lastOrNewSnapshot(tab: Tab, full: boolean): Promise<TabSnapshot> {
  const last = tab.lastWalk;
  if (last && last.full === full && (await stillStands(last))) return last;
  return snapshotTab(tab, full);
}

async function stillStands(walk: WalkedSnapshot): Promise<boolean> {
  try {
    const counts = await Promise.all(
      walk.frames.map(async ({ worlds, frameId, contextId }) =>
        worlds.isAlive(contextId) && (await worlds.contextFor(frameId)) === contextId
          ? worlds.run<number>(contextId, 'changes')
          : NaN,
      ),
    );
    return counts.every((count, i) => count === walk.frames[i]?.changes);
  } catch {
    return false;
  }
}

async function walkTab(tab: Tab, full: boolean): Promise<WalkedSnapshot> {
  tab.refs.prune();
  const frames = await tab.frames();
  const walkedFrames: WalkedSnapshot['frames'] = [];
  let refCount = 0;
  let framesWalked = 0;

  let mainOrigin = '';
  const walkFrame = async (
    frameId: string,
    ancestors: WorldNode[],
    indent: string,
    parentOrigin: string,
  ): Promise<{ lines: string[]; origin: string }> => {
    const entry = frames.get(frameId);
    if (!entry || framesWalked++ >= MAX_FRAMES) return { lines: [], origin: '' };
    const contextId = await entry.worlds.contextFor(frameId);
    const {
      origin,
      text: raw,
      changes,
    } = await entry.worlds.run<{ origin: string; text: string; changes: number }>(
      contextId,
      'snapshot',
      full,
    );
    walkedFrames.push({ worlds: entry.worlds, frameId, contextId, changes });
    if (!parentOrigin) mainOrigin = origin;
    const owners = await frameOwners(entry, contextId);
    const out: string[] = [];
    for (const rawLine of raw === '' ? [] : raw.split('\n')) {
      // eslint-disable-next-line no-control-regex -- the walker's ref markers
      let line = rawLine.replace(/\u0001(\d+)\u0002/g, (_match, id: string) => {
        refCount++;
        return '@' + tab.refs.mint({ worlds: entry.worlds, contextId, localId: Number(id), ancestors });
      });
      // eslint-disable-next-line no-control-regex -- the walker's iframe marker
      const frameMarker = /\u0003(\d+)$/.exec(line);
      if (!frameMarker) {
        out.push(indent + line);
        continue;
      }
      line = line.slice(0, frameMarker.index);
      const iframeId = Number(frameMarker[1]);
      const childFrameId = owners.get(iframeId);
      const child = childFrameId
        ? await walkFrame(
            childFrameId,
            [...ancestors, { worlds: entry.worlds, contextId, localId: iframeId }],
            indent + leadingSpaces(line) + '  ',
            origin,
          ).catch(() => ({ lines: [], origin: '' }))
        : { lines: [], origin: '' };
      // Text from another origin says where it came from: `iframe "Ad" from https://ads.example:`.
      const from = child.origin && child.origin !== origin ? ` from ${child.origin}` : '';
      out.push(indent + line + (child.lines.length > 0 ? from + ':' : ''), ...child.lines);
    }
    return { lines: out, origin };
  };

  const { lines } = await walkFrame(tab.mainFrameId, [], '', '');
  return {
    ...controlSpans(escapeBoundaries(lines.join('\n'))),
    refCount,
    origin: mainOrigin,
    full,
    frames: walkedFrames,
  };
}

/** Takes the walker's control brackets (`\u0004…\u0005`) out of the text, keeping where they were. */
export function controlSpans(marked: string): { text: string; controls: ControlSpan[] } {
  const controls: ControlSpan[] = [];
  let removed = 0;
  let open = 0;
  // eslint-disable-next-line no-control-regex -- the walker's control brackets
  const text = marked.replace(/[\u0004\u0005]/g, (mark, at: number) => {
    if (mark === '\u0004') open = at - removed;
    else controls.push([open, at - removed]);
    removed++;
    return '';
  });
  return { text, controls };
}

function leadingSpaces(line: string): string {
  return /^ */.exec(line)?.[0] ?? '';
}

/** Which child frame each iframe element of this frame (by its id in our world) hosts. */
async function frameOwners(entry: FrameEntry, contextId: number): Promise<Map<number, string>> {
  const owners = new Map<number, string>();
  await Promise.all(
    entry.children.map(async (childId) => {
      try {
        const owner = await entry.worlds.session.send<{ backendNodeId: number }>('DOM.getFrameOwner', {
          frameId: childId,
        });
        const resolved = await entry.worlds.session.send<{ object: { objectId?: string } }>(
          'DOM.resolveNode',
          {
            backendNodeId: owner.backendNodeId,
            executionContextId: contextId,
          },
        );
        if (!resolved.object.objectId) return;
        owners.set(await entry.worlds.runOn<number>(resolved.object.objectId, 'idOf'), childId);
      } catch {
        // A frame that went away while we looked is simply not shown.
      }
    }),
  );
  return owners;
}
