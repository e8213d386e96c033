/** Boolean env flags as the reference reads them: true/1/yes/on and false/0/no/off, any case, trimmed. */
export function parseFlag(raw: string | undefined, fallback: boolean): boolean {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  return fallback;
}

/** A positive integer up to `max`, or undefined (unset or invalid). */
export function parsePositiveInt(raw: string | undefined, max: number): number | undefined {
  const value = raw?.trim();
  if (!value || !/^\d+$/.test(value)) return undefined;
  const number = Number(value);
  return number > 0 && number <= max ? number : undefined;
}

/** `https://x/` → `https://x`, so paths join cleanly. */
export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
