import {
  type Column,
  getTableColumns,
  type InferSelectModel,
  type Query,
  type SQL,
  sql,
  type Table,
} from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Executor } from './database.js';

const dialect = new PgDialect();

/**
 * A hot statement written once with named placeholders (`sql.placeholder('x')`), turned into SQL
 * text once, and run as a named prepared statement (parsed and planned once per connection) on any
 * executor, the pool or a transaction: building a large statement per request costs more than
 * running it. Answers the raw rows (see typedRow).
 */
export function preparedStatement(name: string, build: () => SQL) {
  let query: Query | undefined;
  return async (ex: Executor, values: Record<string, unknown>): Promise<Array<Record<string, unknown>>> => {
    query ??= dialect.sqlToQuery(build());
    const prepared = ex._.session.prepareQuery(query, undefined, name, false);
    const result = (await prepared.execute(values)) as { rows?: Array<Record<string, unknown>> };
    return result.rows ?? [];
  };
}

/**
 * The parts of `INSERT INTO <table> (<columns>) SELECT <list> FROM <source>`: the columns `keys`
 * as placeholders of the same names cast to the column's type (fill them with encodedValues), and
 * the columns of `fromSource` as the given expressions (e.g. columns of a CTE).
 */
export function insertSelectTemplate<T extends Table>(
  table: T,
  keys: ReadonlyArray<keyof InferSelectModel<T> & string>,
  fromSource: Partial<Record<keyof InferSelectModel<T>, SQL>>,
): { columns: SQL; list: SQL } {
  const names: SQL[] = [];
  const list: SQL[] = [];
  for (const [key, column] of Object.entries(getTableColumns(table)) as Array<[string, Column]>) {
    const source = (fromSource as Record<string, SQL | undefined>)[key];
    if (source === undefined && !keys.includes(key as never)) continue;
    names.push(sql`${sql.identifier(column.name)}`);
    list.push(source ?? sql`${sql.placeholder(key)}::${sql.raw(column.getSQLType())}`);
  }
  return { columns: sql`(${sql.join(names, sql`, `)})`, list: sql.join(list, sql`, `) };
}

/** Values of a row as the driver takes them (as drizzle encodes each column), keyed by field name. */
export function encodedValues<T extends Table>(
  table: T,
  row: Partial<InferSelectModel<T>>,
): Record<string, unknown> {
  const columns = getTableColumns(table) as Record<string, Column>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    const column = columns[key];
    if (column) out[key] = value === null || value === undefined ? null : column.mapToDriverValue(value);
  }
  return out;
}

/**
 * Maps a raw result row (keys as PostgreSQL names the columns, values as the driver gives them) to
 * the table's typed row, decoding each value as drizzle's own selects do.
 */
export function typedRow<T extends Table>(table: T, raw: Record<string, unknown>): InferSelectModel<T> {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table)) as Array<[string, Column]>) {
    const value = raw[column.name];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as InferSelectModel<T>;
}
