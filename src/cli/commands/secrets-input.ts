/**
 * Reads a secret's value the only two ways tabgate accepts one: typed at a terminal with no echo, or
 * piped on stdin. Never an argument or an environment variable, which other local users can read in
 * the process list and which land in shell history.
 */
export interface SecretInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export class InputCancelled extends Error {}

/** Everything on stdin, less the one line break a shell pipe or a file adds at the end. */
async function readPiped(input: SecretInput): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** One line typed with no echo at all (not even stars), in raw mode; Ctrl-C or Ctrl-D cancels. */
function readHidden(input: SecretInput, output: NodeJS.WritableStream, prompt: string): Promise<string> {
  // Echo off before the prompt shows: what is typed the moment it appears must not be echoed either.
  input.setRawMode?.(true);
  input.resume();
  output.write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode?.(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\x03' || char === '\x04')
          return finish(new InputCancelled('cancelled; nothing stored'));
        if (char === '\x7f' || char === '\b') value = value.slice(0, -1);
        else if (char >= ' ') value += char;
      }
    };
    input.on('data', onData);
  });
}

export function readSecretValue(
  input: SecretInput,
  output: NodeJS.WritableStream,
  name: string,
): Promise<string> {
  return input.isTTY ? readHidden(input, output, `Value of ${name} (not shown): `) : readPiped(input);
}
