/**
 * The session-metadata contract checked field by field: what `createSession` hands back is read by the
 * engine (`cdp_url`), by release (`bb_session_id`) and by the agent (`features`, `live_url`), so a
 * plugin that returns a wrong shape is told which field, instead of a failure somewhere downstream.
 * Messages never quote a value: a CDP URL may carry the vendor's token.
 */
import { z } from 'zod';
import type { ProviderSessionMetadata } from './api.js';

const nonEmpty = z.string().trim().min(1, 'expected a non-empty string');

const urlWith = (protocols: RegExp, expected: string) =>
  z.string().refine((value) => {
    try {
      return protocols.test(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `expected a ${expected} URL`);

const metadataSchema = z.looseObject({
  session_name: nonEmpty,
  // The contract says a string; a vendor's numeric id is accepted and kept as text.
  bb_session_id: z.union([nonEmpty, z.number().transform(String)], {
    error: 'expected the provider session id as a non-empty string',
  }),
  cdp_url: urlWith(/^(wss?|https?):$/, 'ws(s):// or http(s)://'),
  features: z.record(z.string(), z.unknown(), { error: 'expected an object of feature flags' }),
  external_call_id: z.string().optional(),
  live_url: urlWith(/^https?:$/, 'http(s)://').optional(),
  expires_at: z
    .string()
    .refine((value) => Number.isFinite(Date.parse(value)), 'expected an ISO 8601 timestamp')
    .optional(),
});

export type MetadataCheck =
  | { ok: true; metadata: ProviderSessionMetadata }
  | { ok: false; problems: string[]; providerSessionId?: string };

export function checkSessionMetadata(value: unknown): MetadataCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      problems: ['expected an object with session_name, bb_session_id, cdp_url and features'],
    };
  }
  const parsed = metadataSchema.safeParse(value);
  if (parsed.success) {
    const { session_name, bb_session_id, cdp_url, features, external_call_id, live_url, expires_at } =
      parsed.data;
    const metadata: ProviderSessionMetadata = { session_name, bb_session_id, cdp_url, features };
    if (external_call_id !== undefined) metadata.external_call_id = external_call_id;
    if (live_url !== undefined) metadata.live_url = live_url;
    if (expires_at !== undefined) metadata.expires_at = expires_at;
    return { ok: true, metadata };
  }
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    const key = issue.path[0];
    const missing = typeof key === 'string' && (value as Record<string, unknown>)[key] === undefined;
    return `${field}: ${missing ? 'missing' : issue.message}`;
  });
  const id = (value as { bb_session_id?: unknown }).bb_session_id;
  const providerSessionId = typeof id === 'string' && id.trim() ? id : undefined;
  return { ok: false, problems, ...(providerSessionId ? { providerSessionId } : {}) };
}
