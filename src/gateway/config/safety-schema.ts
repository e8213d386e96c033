/**
 * The `safety:` block of config.yaml (docs/safety.md): where sessions' frames may go. Strict on purpose:
 * a key tabgate does not know, a rule it cannot parse or a mode it does not have stops `tabgate serve`
 * with the line to fix, because a policy that half-loaded would run more permissive than written.
 */
import { z } from 'zod';
import {
  ACTION_CLASSES,
  DEFAULT_IRREVERSIBLE_LEXICON,
  SITE_CATEGORY_NAMES,
  SITE_MODES,
  normalizeSitePattern,
  type ActionClass,
} from '../../protocol/index.js';

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

/** An action class list: `all`, `none`, or the classes by name (docs/safety.md "Approvals"). */
const actionClasses = z
  .union([z.literal('all'), z.literal('none'), z.array(z.enum(ACTION_CLASSES))])
  .transform((value): ActionClass[] =>
    value === 'all' ? [...ACTION_CLASSES] : value === 'none' ? [] : [...new Set(value)],
  );

/** An origin where every click and keystroke waits for approval, stored as `URL.origin` gives it. */
const exactOrigin = z.string().transform((raw, ctx) => {
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // Reported below.
  }
  if (url && /^https?:$/.test(url.protocol) && (url.pathname === '/' || url.pathname === '') && !url.search)
    return url.origin;
  ctx.addIssue({ code: 'custom', message: 'write an origin: https://bank.example.com (scheme, host, port)' });
  return z.NEVER;
});

const approvalDefaults = () => ({
  user_tab: [...ACTION_CLASSES],
  local: [] as ActionClass[],
  remote: [] as ActionClass[],
  lexicon: [...DEFAULT_IRREVERSIBLE_LEXICON],
  per_action_origins: [] as string[],
});

const approvalsSchema = z
  .object({
    /** The user's own tab: every class, unless the owner says otherwise. */
    user_tab: actionClasses.default([...ACTION_CLASSES]),
    local: actionClasses.default([]),
    remote: actionClasses.default([]),
    lexicon: z
      .array(z.string().trim().min(1).max(100))
      .max(500)
      .default([...DEFAULT_IRREVERSIBLE_LEXICON]),
    per_action_origins: z.array(exactOrigin).max(500).default([]),
  })
  .strict();

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
    /** How long an action waits for the owner's decision before it is refused (`approval_timeout`). */
    approval_timeout_s: z.number().int().min(1).max(3600).default(60),
    approvals: approvalsSchema.default(approvalDefaults),
    /**
     * How long browser_request_takeover waits for the person to do the step (`takeover_timeout`), and
     * the most a call's own `timeout_s` may ask for.
     */
    takeover_timeout_s: z.number().int().min(10).max(3600).default(300),
  })
  .strict()
  .default({
    mode: { ...DEFAULT_SAFETY.mode },
    sites: { allow: [], deny: [] },
    blocked_categories: [...SITE_CATEGORY_NAMES],
    approval_timeout_s: 60,
    approvals: approvalDefaults(),
    takeover_timeout_s: 300,
  });

export type SafetyConfig = z.output<typeof safetySchema>;
