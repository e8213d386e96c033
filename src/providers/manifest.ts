/**
 * plugin.yaml: what a plugin says about itself, validated before any of its code runs, so a broken
 * manifest is reported with the field at fault and the plugin's entry is never imported.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** Lowercase, stable: users write it in `browser.cloud_provider`. */
export const PROVIDER_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

const providerName = z
  .string()
  .regex(PROVIDER_NAME_PATTERN, 'expected a lowercase name of letters, digits, - and _');

/** Named setup steps a plugin may ask for after `tabgate tools` stores its credentials (setup/post-setup.ts). */
export const POST_SETUP_STEP_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

// Strict: a misspelt field (`provides_browser_provider`) is reported, not silently ignored.
export const pluginManifestSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  version: z
    .union([z.string().min(1), z.number()], { error: 'expected a version such as 1.0.0' })
    .transform(String),
  description: z.string().default(''),
  author: z.string().optional(),
  kind: z.literal('backend'),
  provides_browser_providers: z.array(providerName).min(1),
  /** The entry module, relative to the plugin folder; `index.js` (then `index.mjs`) when absent. */
  entry: z.string().min(1).optional(),
  /** Env vars the provider needs: the prompts of its default `tabgate tools` row. */
  requires_env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an env var name')).optional(),
  /** A named, allow-listed setup step; never a shell command. */
  post_setup: z
    .string()
    .regex(POST_SETUP_STEP_PATTERN, 'expected the name of a setup step, not a command')
    .optional(),
});

export type PluginManifest = z.infer<typeof pluginManifestSchema>;

export type ManifestResult = { ok: true; manifest: PluginManifest } | { ok: false; message: string };

/** Reads and validates `<dir>/plugin.yaml`; never throws. */
export async function readManifest(dir: string): Promise<ManifestResult> {
  const file = path.join(dir, 'plugin.yaml');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { ok: false, message: `no plugin.yaml in ${dir}` };
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    return {
      ok: false,
      message: `plugin.yaml is not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    };
  }
  const parsed = pluginManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`
        : `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    return { ok: false, message: `plugin.yaml is invalid: ${issues.join('; ')}` };
  }
  return { ok: true, manifest: parsed.data };
}
