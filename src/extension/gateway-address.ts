/**
 * The gateway address a person types into the popup, checked the same way on both sides: the popup
 * shows the reason next to the field, and the worker refuses anything else. The pairing token is sent
 * to this address, so it must be the gateway on this computer, and nothing but an origin.
 */
export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'] as const;

export type GatewayAddress = { ok: true; url: string } | { ok: false; message: string };

const EXAMPLE = 'http://127.0.0.1:8642';

export function parseGatewayAddress(text: string): GatewayAddress {
  const typed = text.trim();
  if (typed === '') return { ok: false, message: `Enter the gateway's address, like ${EXAMPLE}.` };
  let url: URL;
  try {
    url = new URL(typed);
  } catch {
    return {
      ok: false,
      message: `"${typed.slice(0, 80)}" is not a valid address: write it like ${EXAMPLE}.`,
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: `The gateway address must start with http:// (not ${url.protocol}//).` };
  }
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(url.hostname)) {
    return {
      ok: false,
      message: `The gateway must be on this computer: use 127.0.0.1, localhost or [::1], not ${url.hostname}.`,
    };
  }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) {
    return { ok: false, message: `Give only the gateway's address, like ${EXAMPLE}, without a path.` };
  }
  return { ok: true, url: url.origin };
}
