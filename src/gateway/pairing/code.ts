/**
 * The short code a person compares between the extension and the approval page (or types into
 * `tabgate pair approve`). Eight characters from an alphabet without look-alikes (no 0/O, 1/I/L), shown
 * as `XXXX-XXXX`: 40 bits, and wrong guesses are rate-limited, so guessing one inside its 120 s is hopeless.
 */
import { randomBytes } from 'node:crypto';

export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;

/** A fresh code, drawn without modulo bias (rejection sampling over random bytes). */
export function newPairingCode(): string {
  const chars: string[] = [];
  const limit = 256 - (256 % CODE_ALPHABET.length);
  while (chars.length < CODE_LENGTH) {
    for (const byte of randomBytes(CODE_LENGTH * 2)) {
      if (byte >= limit) continue;
      chars.push(CODE_ALPHABET[byte % CODE_ALPHABET.length] as string);
      if (chars.length === CODE_LENGTH) break;
    }
  }
  return `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`;
}

/**
 * What a person typed, in canonical form: case, spaces and dashes do not matter. Returns null when it
 * cannot be a code at all, so a typo is refused before it counts against anything.
 */
export function normalizePairingCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > 32) return null;
  const bare = input.toUpperCase().replace(/[\s-]/g, '');
  if (bare.length !== CODE_LENGTH) return null;
  for (const char of bare) if (!CODE_ALPHABET.includes(char)) return null;
  return `${bare.slice(0, 4)}-${bare.slice(4)}`;
}
