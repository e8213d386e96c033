/**
 * Keeps secrets out of provider error messages. Vendors echo request headers and keys back in error
 * bodies surprisingly often, so a body is redacted before it is shown to anyone: the known secret values
 * first, then anything that looks like a credential.
 */
const REDACTED = '[redacted]';

type Rule = [pattern: RegExp, replacement: string];

const RULES: Rule[] = [
  // Authorization headers echoed back.
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  // key=value, "key": "value", key: value where the key names a credential.
  [
    /((?:api[_-]?key|apikey|access[_-]?key|token|secret|password|passwd|authorization|x-[a-z-]*key)["']?\s*[:=]\s*["']?)([^"'\s,&}]{4,})/gi,
    `$1${REDACTED}`,
  ],
  // Vendor-prefixed keys (sk-…, bb_live_…, fc-…, bu_…).
  [/\b(?:sk|pk|rk|bb|fc|bu)[-_][A-Za-z0-9_-]{8,}/g, REDACTED],
  // Long opaque runs: hex or base64url of 32+ characters without separators.
  [/\b[A-Za-z0-9_]{32,}\b/g, REDACTED],
];

/** Replaces every occurrence of the given secret values and every credential-like string. */
export function redactSecrets(text: string, secrets: Iterable<string | undefined> = []): string {
  let out = text;
  const values = [...secrets].filter(
    (value): value is string => typeof value === 'string' && value.length >= 4,
  );
  // Longest first, so a secret containing another is replaced whole.
  for (const value of values.sort((a, b) => b.length - a.length)) out = out.split(value).join(REDACTED);
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out;
}
