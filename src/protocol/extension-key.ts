/**
 * tabgate's own extension identity. The manifest pins this public key (`"key"`), which makes Chromium
 * give the extension the same id in every checkout, so the gateway can allow its Origin by default.
 * Only the public half lives here; the private key is not needed to load an unpacked extension and is
 * never committed.
 */
export const EXTENSION_PUBLIC_KEY =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEApVURa2MDQGUpZedEkYKrTxeMgfMsJsxGQMWl9by4R0FI/hUHzb7ixGTZNwsV7SO2rHLLHD+22R6ftRam6jBe+dHCXqZ9q5otgGI240GP5qwLeP8at73BhMW/lOBNJ/AVTh1zNJXMHevE/8dTR7hTSKxrOvVSUKos/e6DOmYGzkDntS7NdbJ6W2vCtVao7neNJfKYPQwFUa/t7iZitZlbVwTiYGhPSv6GY/xudVRiuD02Jl/hXgSwT4DlB4w/aYBP5Q7RVEdg3RBUCuDUGnfqk7REL9vPKpjS6SSOIj1nKcf7W+XtIqO6uucORhHZ6x6nXd2tJO8hQN2Mq2wJ0pFpPwIDAQAB';

/** sha256(DER public key), first 32 hex digits mapped 0-f → a-p (Chromium's rule). */
export const EXTENSION_ID = 'ibkaaigidaiacedpobilmlhgicidcjjp';

export const EXTENSION_ORIGIN = `chrome-extension://${EXTENSION_ID}`;
