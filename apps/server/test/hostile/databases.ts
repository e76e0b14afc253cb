import { databaseUrl, scratchPostgres } from '@petstore/testing';

/**
 * The databases a server under attack runs on: the embedded one in memory, and a throwaway PostgreSQL database when
 * `DATABASE_URL` names a server. Each gives the server's environment and how to drop what it made.
 * @example describe.each(serverDatabases)('… on $name', ({ env }) => { … loadConfig({ PORT: '0', ...(await env()).env }) … })
 */
export const serverDatabases = [
  { name: 'the embedded database', env: async () => ({ env: { PETSTORE_DATA_DIR: 'memory://' }, drop: async () => {} }) },
  ...(databaseUrl
    ? [
        {
          name: 'PostgreSQL',
          env: async () => {
            const { url, drop } = await scratchPostgres();
            return { env: { DATABASE_URL: url }, drop };
          },
        },
      ]
    : []),
];
