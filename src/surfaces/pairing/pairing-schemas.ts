import { Type } from '@sinclair/typebox';
import { Envelope } from '../../http/schemas.js';
import { DeviceSetupSchema } from '../../rails/devices/index.js';

// The pairing link's params, bodies and answers (docs/api.md "Devices and requisite holders").

/** Any length reaches the handler, so a malformed code gets the "not found" page, not a JSON error. */
export const PairingParams = Type.Object({ code: Type.String({ maxLength: 200 }) });

export const PairingQuery = Type.Object({
  lang: Type.Optional(Type.String({ maxLength: 5, description: '`ru` or `en` (then remembered)' })),
});

/** A requisite's ending field: `mask_<requisite id>`, four digits or empty. */
export const ENDING_FIELD = /^mask_([0-9a-f-]{36})$/;

/**
 * The claim (a form post, urlencoded, or JSON): every field a string, so one schema reads both.
 * `code` repeats the link's code (a form post must carry it: docs/decisions.md "The pairing
 * page"); `mask_<requisite id>` gives the ending of a requisite the page asked about.
 */
export const ClaimBody = Type.Object(
  {
    code: Type.Optional(
      Type.String({ maxLength: 200, description: "The link's code (required in a form post)" }),
    ),
    lang: Type.Optional(Type.String({ maxLength: 5, description: 'The answer page language, `ru` or `en`' })),
  },
  {
    additionalProperties: false,
    patternProperties: {
      [ENDING_FIELD.source]: Type.String({
        maxLength: 8,
        description: 'The last four digits the bank texts show for this requisite, or empty',
      }),
    },
  },
);

const PairingRequisiteSchema = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: 'card, phone, qr or account' }),
  bank: Type.String(),
  address: Type.String({ description: 'All but the last four characters hidden' }),
  masks: Type.Array(Type.String(), { description: "Endings its bank's messages are matched against" }),
  asks_ending: Type.Boolean({
    description: "No ending yet and its bank's credit texts show one: send `mask_<id>` with the claim",
  }),
});

/** `GET /devices/pair/{code}` as JSON: the link before its claim, nothing secret. */
export const PairingPreviewSchema = Envelope(
  Type.Object({
    device_id: Type.String(),
    name: Type.String(),
    expires_at: Type.String({ description: 'ISO 8601 UTC' }),
    requisites: Type.Array(PairingRequisiteSchema),
    apps: Type.Object({
      sms_gateway: Type.Object({ url: Type.String(), events: Type.Array(Type.String()) }),
      sms_forwarder: Type.Object({ url: Type.String(), template: Type.String() }),
      native: Type.Object({ url: Type.String() }),
    }),
  }),
);

/** `POST /devices/pair/{code}` as JSON: every app's setup, once, and the endings recorded. */
export const PairingClaimSchema = Envelope(
  Type.Object({
    ...DeviceSetupSchema.properties,
    endings: Type.Array(Type.Object({ requisite_id: Type.String(), mask: Type.String() })),
  }),
);

/** The page, when the answer is HTML. */
export const PageSchema = Type.String({ description: 'The page (text/html)' });
