/**
 * The `safety:` block of config.yaml (docs/safety.md): where sessions' frames may go. Strict on purpose:
 * a key tabgate does not know, a rule it cannot parse or a mode it does not have stops `tabgate serve`
 * with the line to fix, because a policy that half-loaded would run more permissive than written.
 */
import { z } from 'zod';
import { SITE_CATEGORY_NAMES, SITE_MODES, normalizeSitePattern } from '../../protocol/index.js';

/** A site rule, stored in its canonical form (`HTTPS://A.test:443/` → `https://a.test`). */
const siteRule = z.string().transform((raw, ctx) => {
  const normalized = normalizeSitePattern(raw);
  if (normalized.ok) return normalized.value;
  ctx.addIssue({
    code: 'custom',
    message: `${normalized.reason}; write an origin (https://mail.example.com), a host (example.com) or *.example.com`,
  });
  return z.NEVER;
});

const mode = z.enum(SITE_MODES);
/** The user's tab holds their logged-in life: it has no `off`. */
const userTabMode = z.enum(['ask', 'allow-listed']);

export const DEFAULT_SAFETY = {
  mode: { user_tab: 'ask', local: 'off', remote: 'off' },
  sites: { allow: [], deny: [] },
  blocked_categories: [...SITE_CATEGORY_NAMES],
} as const;

export const safetySchema = z
  .object({
    mode: z
      .object({
        /** The user's own tab (extension): only the origin they shared, plus what they grant. */
        user_tab: userTabMode.default(DEFAULT_SAFETY.mode.user_tab),
        /** The local Chromium tabgate launches. */
        local: mode.default(DEFAULT_SAFETY.mode.local),
        /** Cloud providers' browsers and `browser.cdp_url`. */
        remote: mode.default(DEFAULT_SAFETY.mode.remote),
      })
      .strict()
      .default({ ...DEFAULT_SAFETY.mode }),
    sites: z
      .object({
        allow: z.array(siteRule).default([]),
        deny: z.array(siteRule).default([]),
      })
      .strict()
      .default({ allow: [], deny: [] }),
    /** Categories blocked until granted by name; `[]` blocks none. */
    blocked_categories: z.array(z.enum(SITE_CATEGORY_NAMES)).default([...SITE_CATEGORY_NAMES]),
  })
  .strict()
  .default({
    mode: { ...DEFAULT_SAFETY.mode },
    sites: { allow: [], deny: [] },
    blocked_categories: [...SITE_CATEGORY_NAMES],
  });

export type SafetyConfig = z.output<typeof safetySchema>;
