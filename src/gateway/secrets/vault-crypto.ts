/**
 * AES-256-GCM for one vault entry. The entry's name, origin and kind are the additional authenticated
 * data, so a value moved to another entry in the file (another origin) no longer decrypts: binding a
 * secret to its origin holds even against someone who can edit the vault file but not read the key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const KEY_BYTES = 32;
const IV_BYTES = 12;

export interface SealedValue {
  iv: string;
  tag: string;
  data: string;
}

export interface EntryLabel {
  name: string;
  origin: string;
  field: string;
}

const aadOf = (label: EntryLabel) => Buffer.from(JSON.stringify([label.name, label.origin, label.field]));

export function seal(key: Buffer, label: EntryLabel, value: string): SealedValue {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aadOf(label));
  const data = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return {
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
}

/** The value, or null when the entry was altered or sealed with another key. */
export function open(key: Buffer, label: EntryLabel, sealed: SealedValue): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(aadOf(label));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const data = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
    return data.toString('utf8');
  } catch {
    return null;
  }
}
