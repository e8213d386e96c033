/** A refusal of the extension's own, with the code the gateway passes on as `controller_code`. */
export class CommandError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
