/**
 * Refs (`@eN`) of one tab. A ref is bound to one element of one document: the frame's isolated-world
 * context (one per document) and the element's id inside that world, plus the iframes above it. Numbers
 * come from a counter shared by the whole session, so a ref is never reused for another element, and a
 * ref of another tab or an older document simply is not found here: `stale_ref`, never a wrong element.
 */
import type { FrameWorlds } from './frame-worlds.js';

export interface WorldNode {
  worlds: FrameWorlds;
  contextId: number;
  localId: number;
}

export interface RefBinding extends WorldNode {
  /** The iframe elements above the node, outermost first. */
  ancestors: WorldNode[];
}

export interface RefCounter {
  next: number;
}

const keyOf = (node: WorldNode) => `${node.worlds.session.id ?? 'root'}|${node.contextId}|${node.localId}`;

export class RefTable {
  private readonly byKey = new Map<string, number>();
  private readonly byRef = new Map<number, RefBinding>();

  constructor(private readonly counter: RefCounter) {}

  /** The ref of this node: the same number as last time when the node was seen before. */
  mint(binding: RefBinding): string {
    const key = keyOf(binding);
    let ref = this.byKey.get(key);
    if (ref === undefined) {
      ref = this.counter.next++;
      this.byKey.set(key, ref);
    }
    this.byRef.set(ref, binding);
    return `e${ref}`;
  }

  lookup(ref: string): RefBinding | undefined {
    const match = /^@?e(\d+)$/.exec(ref);
    return match ? this.byRef.get(Number(match[1])) : undefined;
  }

  /** Every live ref and its binding. */
  *entries(): IterableIterator<[string, RefBinding]> {
    for (const [ref, binding] of this.byRef) yield [`@e${ref}`, binding];
  }

  /** Forgets refs whose document is gone; they would fail as stale anyway. */
  prune(): void {
    for (const [ref, binding] of this.byRef) {
      if (!binding.worlds.isAlive(binding.contextId)) {
        this.byRef.delete(ref);
        this.byKey.delete(keyOf(binding));
      }
    }
  }
}
