/**
 * `tabgate doctor [--json]`: checks the configuration for risky settings, a missing browser, whether the
 * local browser runs sandboxed, and broken plugins, prints one line per finding, and exits 1 when
 * anything is risky or broken (so scripts and CI can gate on it).
 */
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../../gateway/config/index.js';
import { clusterFindings } from '../cluster-doctor.js';
import { isFailing, runDoctorChecks, type Finding } from '../doctor-checks.js';

const MARK: Record<Finding['level'], string> = {
  ok: 'ok   ',
  info: 'info ',
  warn: 'warn ',
  risk: 'RISK ',
  error: 'ERROR',
};

export function doctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check the configuration for risky settings, a missing browser, the browser sandbox and broken plugins.',
    )
    .option('--json', 'print the findings as JSON')
    .action(async (options: { json?: boolean }) => {
      let findings: Finding[];
      try {
        const config = loadConfig({ env: process.env });
        findings = await runDoctorChecks({ config, env: process.env });
        findings.push(...(await clusterFindings(config)));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        findings = [{ level: 'error', check: 'config', message: error.message }];
      }
      if (options.json) process.stdout.write(JSON.stringify({ findings }, null, 2) + '\n');
      else for (const f of findings) process.stdout.write(`${MARK[f.level]}  ${f.check}: ${f.message}\n`);
      if (isFailing(findings)) process.exitCode = 1;
    });
}
