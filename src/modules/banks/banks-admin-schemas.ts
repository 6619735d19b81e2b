import { Type } from '@sinclair/typebox';

/** A bank as operators see it (`/admin/banks`). */
export const AdminBankSchema = Type.Object({
  code: Type.String(),
  name: Type.String(),
  enabled: Type.Boolean(),
  sbp: Type.Boolean({ description: 'Serves sim (SBP) payouts' }),
  card: Type.Boolean({ description: 'Serves card payouts' }),
  sms_senders: Type.Array(Type.String(), {
    description: "SMS sender ids whose messages are this bank's (operators' list or the defaults)",
  }),
  app_packages: Type.Array(Type.String(), {
    description: "App packages whose notifications are this bank's",
  }),
  messages_read: Type.Boolean({ description: "The service reads this bank's messages (has its rules)" }),
});
