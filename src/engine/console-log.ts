/**
 * Console messages and uncaught page errors of one tab (all its frames), collected from CDP events. No
 * evaluation of any kind: `browser_console` only reads what the page logged.
 */
import type { ConsoleEntry } from '../protocol/index.js';
import type { ConsoleApiCalled, ExceptionDetails, RemoteObject } from './cdp-types.js';
import type { CdpSession } from './transport.js';

const MAX_MESSAGES = 1000;
const MAX_ERRORS = 200;
const MAX_TEXT = 2000;

function render(arg: RemoteObject): string {
  if (arg.value !== undefined) return typeof arg.value === 'string' ? arg.value : JSON.stringify(arg.value);
  return arg.description ?? arg.type;
}

export class ConsoleLog {
  messages: ConsoleEntry[] = [];
  errors: { message: string }[] = [];

  /** Starts collecting from one session (the page, or one of its out-of-process iframes). */
  listen(session: CdpSession): (() => void)[] {
    return [
      session.on<ConsoleApiCalled>('Runtime.consoleAPICalled', (event) => {
        const top = event.stackTrace?.callFrames[0];
        const entry: ConsoleEntry = {
          type: event.type,
          text: event.args.map(render).join(' ').slice(0, MAX_TEXT),
          ...(top ? { url: top.url, line: top.lineNumber + 1 } : {}),
        };
        this.messages.push(entry);
        if (this.messages.length > MAX_MESSAGES) this.messages.shift();
      }),
      session.on<{ exceptionDetails: ExceptionDetails }>(
        'Runtime.exceptionThrown',
        ({ exceptionDetails }) => {
          const message = exceptionDetails.exception?.description ?? exceptionDetails.text;
          this.errors.push({ message: message.slice(0, MAX_TEXT) });
          if (this.errors.length > MAX_ERRORS) this.errors.shift();
        },
      ),
    ];
  }

  clear(): void {
    this.messages = [];
    this.errors = [];
  }
}
