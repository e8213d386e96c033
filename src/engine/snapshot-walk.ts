/**
 * What a snapshot walk yields (snapshot.ts), apart from the walk itself so that a tab can keep its last
 * one without the tab and the walker importing each other.
 */
import type { FrameWorlds } from './frame-worlds.js';
import type { ControlSpan } from './snapshot-pager.js';

export interface TabSnapshot {
  text: string;
  refCount: number;
  /** Where each control's piece starts and ends in `text`: a page is never cut inside one. */
  controls: ControlSpan[];
  /** The main frame's origin, which the answer's page-text boundary names. */
  origin: string;
}

/** A walk and what it saw of each frame: its world and that world's change count at the walk. */
export interface WalkedSnapshot extends TabSnapshot {
  full: boolean;
  frames: { worlds: FrameWorlds; frameId: string; contextId: number; changes: number }[];
}
