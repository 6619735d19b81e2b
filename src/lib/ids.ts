import { v7 as uuidv7 } from 'uuid';

/** Prefix of every internal order id (docs/api.md "Identifiers of an order"). */
export const INTERNAL_ID_PREFIX = 'lux';

const INTERNAL_ID_RE = /^lux[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A new internal_id: `lux` + lowercase hyphenated UUIDv7 (docs/decisions.md section 1). */
export function newInternalId(): string {
  return `${INTERNAL_ID_PREFIX}${uuidv7()}`;
}

/** True when `id` has the exact shape of an internal_id. */
export function isInternalId(id: string): boolean {
  return INTERNAL_ID_RE.test(id);
}

/** Whether `id` is a UUID as PostgreSQL prints one (any version): ids of requisites, devices, events. */
export function isUuid(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}
