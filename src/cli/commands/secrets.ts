/**
 * `tabgate secrets add NAME --origin URL [--field KIND] | list | remove NAME`: the owner's vault, kept
 * in the home folder and changed on the files directly (docs/secrets.md). Values are read from a
 * terminal with no echo or from stdin, never from an argument; `list` never prints a value.
 */
import type { Command } from 'commander';
import { loadConfig } from '../../gateway/config/index.js';
import { Vault } from '../../gateway/secrets/index.js';
import { checkField } from '../../gateway/secrets/vault.js';
import { readSecretValue } from './secrets-input.js';

function vaultOf(): Vault {
  return new Vault(loadConfig({ env: process.env }).home);
}

function fail(action: string, error: unknown): void {
  process.stderr.write(`tabgate secrets ${action}: ${(error as Error).message}\n`);
  process.exitCode = 1;
}

export function secretsCommand(program: Command): void {
  const secrets = program
    .command('secrets')
    .description("The owner's vault: secrets agents can fill by name but never see.");
  secrets
    .command('add <name>')
    .description('Store a secret for one origin; its value is read from the terminal (no echo) or stdin.')
    .requiredOption('--origin <origin>', 'the only origin it fills on, like https://accounts.example.com')
    .option('--field <kind>', 'password, username, otp or card', 'password')
    .action(async (name: string, options: { origin: string; field: string }) => {
      try {
        const vault = vaultOf();
        const field = checkField(options.field);
        const value = await readSecretValue(process.stdin, process.stderr, name);
        vault.add({ name, origin: options.origin, field, value }, new Date());
        process.stdout.write(`Stored ${name} (${field}) for ${options.origin.replace(/\/$/, '')}.\n`);
      } catch (error) {
        fail('add', error);
      }
    });
  secrets
    .command('list')
    .description('List the secrets: name, origin, kind and when added; never a value.')
    .action(() => {
      try {
        const entries = vaultOf().list();
        if (entries.length === 0) process.stdout.write('No secrets.\n');
        for (const e of entries)
          process.stdout.write(`${e.name}  ${e.origin}  ${e.field}  added ${e.created_at}\n`);
      } catch (error) {
        fail('list', error);
      }
    });
  secrets
    .command('remove <name>')
    .description('Forget a secret.')
    .action((name: string) => {
      try {
        if (!vaultOf().remove(name)) throw new Error(`no secret named ${name}`);
        process.stdout.write(`Removed ${name}.\n`);
      } catch (error) {
        fail('remove', error);
      }
    });
}
