/**
 * The `store.url` setting: absent for the embedded SQLite file, or a `postgres://` URL. A URL may hold
 * a password, so everything that prints one prints `redactStoreUrl(url)`.
 */

const SCHEMES = new Set(['postgres:', 'postgresql:']);

/** Whether a URL names PostgreSQL; anything else is not a store tabgate knows. */
export function isPostgresUrl(url: string): boolean {
  try {
    return SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** The URL with its password (and any `password=` parameter) replaced by `***`. */
export function redactStoreUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL at all: show its scheme only, since we cannot tell where a secret would be.
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
    return scheme ? `${scheme}//***` : '***';
  }
  if (parsed.password) parsed.password = '***';
  for (const key of [...parsed.searchParams.keys()])
    if (/pass|secret|key/i.test(key)) parsed.searchParams.set(key, '***');
  return parsed.toString();
}

/** A message with every occurrence of the URL's password replaced, for errors that quote it. */
export function scrubPassword(text: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return text;
  }
  return password.length > 0 ? text.split(password).join('***') : text;
}
