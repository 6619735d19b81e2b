import { Type } from '@sinclair/typebox';

/** A bank as operators see it (`/admin/banks`). */
export const AdminBankSchema = Type.Object({
  code: Type.String(),
  name: Type.String(),
  enabled: Type.Boolean(),
  sbp: Type.Boolean({ description: 'Serves sim (SBP) payouts' }),
  card: Type.Boolean({ description: 'Serves card payouts' }),
});
