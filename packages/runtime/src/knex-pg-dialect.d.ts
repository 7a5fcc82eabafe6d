// knex's PostgreSQL client class, which knex ships without types: what prepared.ts extends of it.
declare module 'knex/lib/dialects/postgres/index.js' {
  interface KnexQuery {
    sql: string;
    bindings?: readonly unknown[];
    options?: Record<string, unknown>;
    /** node-postgres's result, once run. */
    response?: unknown;
  }
  class PgDialect {
    constructor(config: object);
    _query(connection: object, obj: KnexQuery): Promise<KnexQuery>;
    releaseConnection(connection: object): Promise<unknown>;
    positionBindings(sql: string): string;
  }
  export = PgDialect;
}
