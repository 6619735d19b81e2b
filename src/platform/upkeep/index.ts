/** The database's upkeep that the service does itself (docs/decisions.md "The requisite claim under load"). */
export { HOT_TABLE_MIN_DEAD, vacuumHotTables } from './hot-tables.js';
