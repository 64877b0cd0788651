import type { KyselyPlugin } from 'kysely';

/**
 * Counts the statements executed through a database (`db.withPlugin(counter.plugin)`): results, not query
 * trees, since Kysely transforms every subquery too.
 */
export function statementCounter() {
  let statements = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      statements++;
      return args.result;
    },
  };
  return {
    plugin,
    /** The statements since the last call. */
    take: () => {
      const n = statements;
      statements = 0;
      return n;
    },
  };
}
