/** A Redis URL as it may be shown to a person: the password never, the user name and address always. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not parseable: show the scheme only, since the rest could hold a password.
    return `${url.split(':', 1)[0] ?? 'redis'}://…`;
  }
}
