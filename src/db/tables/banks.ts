import { boolean, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from '../columns.js';

// Tables of the banks module: only src/modules/banks/ reads and writes them (docs/architecture.md).

export const banks = pgTable('banks', {
  code: text('code').primaryKey(),
  name: text('name').notNull().unique(),
  enabled: boolean('enabled').notNull().default(true),
  /** Takes fast-payment (phone) transfers. */
  sbp: boolean('sbp').notNull().default(true),
  /** Issues cards that take card-to-card transfers. */
  card: boolean('card').notNull().default(true),
  createdAt: createdAt(),
});
