import { timestamp } from 'drizzle-orm/pg-core';

/** A `timestamptz` column read as a Date. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** `created_at timestamptz NOT NULL DEFAULT now()`. */
export const createdAt = () => ts('created_at').notNull().defaultNow();
