/**
 * Import cycles, type-only imports included (eslint's import-x/no-cycle skips those): a cycle of types
 * still ties two modules so neither can be read, tested or moved without the other. And the one folder
 * direction eslint's path patterns cannot say as plainly: config/ never imports backends/.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules must not import each other, directly or through others, types included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'config-below-backends',
      severity: 'error',
      comment:
        'Configuration is read by the backends, never the other way: the settings a backend takes live in config/.',
      from: { path: '^src/gateway/config/' },
      to: { path: '^src/gateway/backends/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
  },
};
