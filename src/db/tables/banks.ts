import { boolean, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
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
  /** SMS sender ids whose messages are this bank's (docs/decisions.md section 24); null: the bank format's defaults. */
  smsSenders: jsonb('sms_senders').$type<string[]>(),
  /** App packages whose notifications are this bank's; null: the bank format's defaults. */
  appPackages: jsonb('app_packages').$type<string[]>(),
  createdAt: createdAt(),
});
