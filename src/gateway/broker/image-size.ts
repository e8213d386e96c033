/**
 * The pixel size a PNG or JPEG declares in its header, for a controller's screenshot that came as a
 * bare data URL: the catalog's screenshot result says how large the image is, and the agent lays refs
 * and clicks out by it.
 */
export interface ImageSize {
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngSize(bytes: Buffer): ImageSize | null {
  // The IHDR chunk comes first: width and height at bytes 16 and 20.
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Start-of-frame markers (SOF0–SOF15) other than DHT, JPG and DAC, which share their range. */
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function jpegSize(bytes: Buffer): ImageSize | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let at = 2;
  while (at + 9 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1] ?? 0;
    if (isStartOfFrame(marker))
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return null;
}

export function imageSize(mimeType: string, bytes: Buffer): ImageSize | null {
  if (mimeType === 'image/png') return pngSize(bytes);
  if (mimeType === 'image/jpeg') return jpegSize(bytes);
  return null;
}
