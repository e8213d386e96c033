/**
 * The engine side of `browser_read`: the main frame's readable text from the page-side reader, its
 * link markers turned into session-wide refs (`@eN`) like the snapshot's.
 */
import { escapeBoundaries } from './page-text-boundary.js';
import { controlSpans, type TabSnapshot } from './snapshot.js';
import type { Tab } from './tab.js';

export async function readTab(tab: Tab): Promise<TabSnapshot> {
  tab.refs.prune();
  const worlds = tab.pageWorlds;
  const contextId = await worlds.contextFor(tab.mainFrameId);
  const { origin, text } = await worlds.run<{ origin: string; text: string }>(contextId, 'read');
  let refCount = 0;
  // eslint-disable-next-line no-control-regex -- the reader's ref markers
  const marked = text.replace(/\u0001(\d+)\u0002/g, (_match, id: string) => {
    refCount++;
    return '@' + tab.refs.mint({ worlds, contextId, localId: Number(id), ancestors: [] });
  });
  return { ...controlSpans(escapeBoundaries(marked)), refCount, origin };
}
