/**
 * Camofox's snapshot in tabgate's format. Camofox writes one element per line as `[role eN] name`
 * (`[role] text` when it has no ref); tabgate's agents read `role "name" @eN`, and send `@eN` back, which
 * Camofox wants as `eN`. Refs stay Camofox's own: they are bound to its page, which is what makes a ref
 * from an older page fail as `stale_ref` there.
 */
import type { SnapshotResult } from '../../../protocol/index.js';

const LINE = /^(\s*(?:-\s*)?)\[([^\]\s]+)(?:\s+(e\d+))?\]\s?(.*)$/;

export function translateSnapshotText(text: string): { text: string; refs: number } {
  let refs = 0;
  const lines = text.split('\n').map((line) => {
    const match = LINE.exec(line);
    if (!match) return line;
    const [, indent = '', role = '', ref, name = ''] = match;
    if (ref) refs++;
    const label = name.trim() ? ` ${JSON.stringify(name.trim())}` : '';
    return `${indent}${role}${label}${ref ? ` @${ref}` : ''}`;
  });
  return { text: lines.join('\n'), refs };
}

/** `@e3` (tabgate) → `e3` (Camofox); null for anything that is not a ref. */
export function camofoxRef(ref: string): string | null {
  const match = /^@?(e\d+)$/.exec(ref.trim());
  return match?.[1] ?? null;
}

export interface CamofoxSnapshot {
  url?: string;
  title?: string;
  snapshot: string;
  refsCount?: number;
  truncated?: boolean;
  totalChars?: number;
  hasMore?: boolean;
  nextOffset?: number;
}

/** One page of the snapshot, cut to tabgate's budget at a line boundary. */
export function snapshotResult(raw: CamofoxSnapshot, maxChars: number, offset = 0): SnapshotResult {
  const { text, refs } = translateSnapshotText(raw.snapshot);
  let end = Math.min(text.length, offset + maxChars);
  if (end < text.length) {
    const cut = text.lastIndexOf('\n', end);
    if (cut > offset) end = cut + 1;
  }
  return {
    url: raw.url ?? '',
    title: raw.title ?? '',
    snapshot: text.slice(offset, end),
    ref_count: raw.refsCount ?? refs,
    truncated: end < text.length || raw.hasMore === true,
    total_chars: text.length,
    offset,
    next_offset: end < text.length ? end : null,
  };
}
