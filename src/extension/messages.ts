/**
 * What the popup asks the service worker, and what it gets back. Both sides import this file; the
 * worker validates every request with these schemas before acting on it.
 */
import { z } from 'zod';

export const requestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('status') }),
  z.object({
    type: z.literal('set-gateway'),
    url: z.string().regex(/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/),
  }),
  z.object({ type: z.literal('pair'), open_approval_page: z.boolean().default(true) }),
  z.object({ type: z.literal('unpair') }),
  z.object({ type: z.literal('sessions') }),
  z.object({
    type: z.literal('share'),
    session_id: z.string().min(1).max(256),
    title: z.string().max(512).nullable(),
    tab_id: z.number().int().min(0),
  }),
  z.object({ type: z.literal('stop') }),
]);

export type PopupRequest = z.input<typeof requestSchema>;

export interface StatusView {
  gateway_url: string;
  paired: { name: string; grant_id: string } | null;
  pending_pairing: { code: string; approve_url: string; expires_at: number } | null;
  pairing_error: { code: string; message: string } | null;
  share: { session_id: string; title: string | null; tab_ids: number[]; active_tab_id: number } | null;
  connection: { state: string; error: { code: string; message: string } | null; attempt: number };
  running_commands: number;
}

export type Response<T = unknown> =
  { ok: true; value: T } | { ok: false; error: { code: string; message: string } };
