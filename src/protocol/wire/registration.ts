/**
 * The registration body (`POST /v1/browser-control/register`), a wire contract: its three identity
 * fields, in the order the protocol checks them (docs/protocol.md "POST /v1/browser-control/register"). `protocol_version`
 * and `capabilities` are checked after them, each with its own error code, so they are not part of
 * this schema.
 */
import { z } from 'zod';
import { MAX_REGISTRATION_FIELD_CHARS } from './constants.js';

const identity = z
  .string({ error: `must be a non-empty string of at most ${MAX_REGISTRATION_FIELD_CHARS} characters` })
  .min(1, `must be a non-empty string of at most ${MAX_REGISTRATION_FIELD_CHARS} characters`)
  .max(
    MAX_REGISTRATION_FIELD_CHARS,
    `must be a non-empty string of at most ${MAX_REGISTRATION_FIELD_CHARS} characters`,
  );

export const registrationIdentitySchema = z.object({
  session_id: identity,
  controller_id: identity,
  browser_profile_id: identity,
});

export type RegistrationIdentity = z.infer<typeof registrationIdentitySchema>;
