import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources in tests (the `@petstore/source` export condition).
const conditions = ['@petstore/source', 'node', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'examples/**/*.test.ts'],
    globalSetup: ['./vitest.global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true, include: ['**/*.test-d.ts'], tsconfig: './tsconfig.typetest.json' },
  },
});
