import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { TObject } from '@sinclair/typebox';

const AUTH_TEXT = `Every /merchant request carries two headers: \`client-api-key\` (your API key) and \`x-api-key\`,
the lowercase hex SHA-256 of \`<API_KEY>|<request body>\` over the exact bytes sent (compact JSON by
convention). GET requests and multipart uploads sign an empty body: \`<API_KEY>|\`. Query strings are not
signed. Webhooks are signed the same way with your current key.`;

/** Example bodies shown in /docs for the merchant endpoints (docs/api.md shapes). */
const EXAMPLES: Record<string, { body?: unknown; response: unknown }> = {
  'POST /merchant/createOrder': {
    body: {
      merchant_id: 'shop1',
      amount: 1000,
      type: 'sim',
      order_id: 'order-1',
      amountUp: 30,
      amountDown: 30,
      success_callback_url: 'https://shop.example/hooks/pay',
    },
    response: {
      ok: true,
      id: 'lux01993328-a828-7581-b3a9-e712a6a0e88c',
      payment_id: 'order-1',
      status: 'pending',
      direction: 'PAYIN',
      usdtAmount: null,
      usdtAmountAfterFee: null,
      amountAfterFee: 975,
      exchangeRate: null,
      currency: 'RUB',
      remainingSeconds: 900,
      payment_details: {
        address: '79001234567',
        bank: 'Sberbank',
        holder_name: 'Ivan I.',
        type: 'sim',
        amount: '1001',
      },
    },
  },
  'GET /merchant/order/{id}': {
    response: {
      success: true,
      ok: true,
      data: { id: 'lux01993328-…', status: 'success' },
      id: 'lux01993328-…',
      status: 'success',
    },
  },
  'GET /merchant/orders': {
    response: {
      success: true,
      ok: true,
      data: { total: 1, page: 1, size: 10, orders: [] },
      total: 1,
      page: 1,
      size: 10,
      orders: [],
    },
  },
  'GET /merchant/balance/{merchant_id}': {
    response: {
      success: true,
      ok: true,
      data: {
        merchant_id: 'shop1',
        balance: 975,
        reserved: 0,
        available: 975,
        currency: 'RUB',
        usdtBalance: 0,
        allowUsdt: false,
        balances: [],
      },
      balance: 975,
    },
  },
  'GET /merchant/banks': {
    response: { success: true, count: 1, data: [{ code: 'sber', name: 'Sberbank' }] },
  },
  'GET /merchant/bank-standards': {
    response: {
      success: true,
      count: 1,
      data: [
        {
          code: 'sber',
          name: 'Sberbank',
          types: [{ type: 'card', account: 'card number', digits: 16, pattern: '^\\d{16}$' }],
        },
      ],
    },
  },
  'GET /merchant/pool/requisites': {
    response: {
      success: true,
      data: [{ id: '0f8c…', amount: 5000, type: 'sim', remainingSeconds: 540 }],
      requisites: [{ id: '0f8c…', amount: 5000, type: 'sim', remainingSeconds: 540 }],
    },
  },
  'POST /merchant/receipt/upload': {
    body: { orderId: 'order-1', receiptUrl: 'https://shop.example/receipts/1.pdf' },
    response: { success: true, purchaseId: 'order-1', internalId: 'lux01993328-a828-7581-b3a9-e712a6a0e88c' },
  },
};

const SECURITY: Array<[RegExp, Record<string, string[]>[]]> = [
  [/^\/merchant\//, [{ clientApiKey: [], signature: [] }]],
  [/^\/admin\//, [{ adminBearer: [] }]],
  [/^\/chain\//, [{ chainWatcherBearer: [] }]],
  [/^\/(holder|trader)\//, [{ deviceBearer: [] }]],
];

/** The merchant endpoints' operation ids, as merchants' code generators will name them. */
const OPERATION_IDS: Record<string, string> = {
  'POST /merchant/createOrder': 'createOrder',
  'GET /merchant/order/{id}': 'getOrder',
  'GET /merchant/orders': 'listOrders',
  'GET /merchant/balance/{merchant_id}': 'getBalance',
  'GET /merchant/banks': 'listBanks',
  'GET /merchant/bank-standards': 'listBankStandards',
  'GET /merchant/pool/requisites': 'listPoolRequisites',
  'POST /merchant/receipt/upload': 'uploadReceipt',
};

/**
 * An operation id for every route: the merchant endpoints' names above, else one made of the method
 * and the path (`GET /admin/orders/{id}` -> `getAdminOrdersById`), unique as the route is.
 */
export function operationIdOf(method: string, path: string): string {
  const known = OPERATION_IDS[`${method} ${path}`];
  if (known) return known;
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((part) => {
      const param = /^\{(\w+)\}$/.exec(part)?.[1];
      return (param ? `by-${param}` : part).split(/[-_.]/);
    });
  return [method.toLowerCase(), ...words.map((w) => w.charAt(0).toUpperCase() + w.slice(1))].join('');
}

/** Schemas the document shows that the HTTP layer does not own (it imports no module). */
export interface OpenApiExtras {
  /** The success webhook body (the webhooks module's WebhookBodySchema). */
  webhookBody: TObject;
  /** Event subscriptions (docs/decisions.md section 26): the event body and the event types, for the webhooks section. */
  events?: { body: TObject; types: readonly string[] };
}

/** One `webhooks` entry per event type: the same signature and retries as the success webhook. */
function eventWebhooks(events: OpenApiExtras['events']): Record<string, unknown> {
  if (!events) return {};
  return Object.fromEntries(
    events.types.map((type) => [
      type,
      {
        post: {
          summary: `Event ${type}, sent to each subscription that names it`,
          description:
            'Subscribed with POST /merchant/webhooks/subscriptions; signed and retried like the success webhook. De-duplicate on `id` (a resend keeps it); `data.order` is the object GET /merchant/order/{id} answers.',
          requestBody: {
            content: {
              'application/json': {
                // The body's `type` is this event's own (one schema per event in the document).
                schema: {
                  ...events.body,
                  properties: {
                    ...(events.body.properties as object),
                    type: { type: 'string', enum: [type], description: 'The event type' },
                  },
                },
                example: {
                  id: '0b6f1f0e-7c55-4a53-9d1e-3f1f3b7b2a10',
                  type,
                  created_at: '2026-11-24T10:15:00.000Z',
                  data: { order: { id: 'lux01993328-a828-7581-b3a9-e712a6a0e88c', order_id: 'order-1' } },
                },
              },
            },
          },
          responses: { '200': { description: 'Acknowledged' } },
        },
      },
    ]),
  );
}

/** The OpenAPI 3.1 document generated from the route schemas (README "Deployment"). */
export function openApiOptions(publicBaseUrl: string, extras: OpenApiExtras): FastifyDynamicSwaggerOptions {
  const webhookKeys = Object.keys(extras.webhookBody.properties).join(', ');
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Merchant payment orders API',
        version: '1.0.0',
        description: `PAYIN (fiat, crypto) and PAYOUT orders, receipts, balances and a signed success webhook.\n\n## Authentication\n${AUTH_TEXT}\n\nErrors: \`{"success":false,"ok":false,"status":<http>,"message":"<CODE>"}\`; 429 adds \`"error":"Too many requests, slow down."\` and \`Retry-After\`.`,
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          clientApiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'client-api-key',
            description: 'Your API key in plain text',
          },
          signature: {
            type: 'apiKey',
            in: 'header',
            name: 'x-api-key',
            description: 'hex sha256("<API_KEY>|<body>")',
          },
          adminBearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'ADMIN_TOKEN or an operator API token (op_...)',
          },
          chainWatcherBearer: { type: 'http', scheme: 'bearer', description: 'CHAIN_WATCHER_TOKEN' },
          deviceBearer: {
            type: 'http',
            scheme: 'bearer',
            description: "A requisite holder's device token (dev_...)",
          },
        },
      },
      tags: [
        { name: 'merchant', description: 'The merchant API (signed)' },
        { name: 'admin', description: 'Operators (bearer token)' },
        { name: 'form', description: "The payer's payment form" },
        { name: 'chain', description: 'Chain watcher' },
        { name: 'holder', description: "Requisite holders' devices" },
        { name: 'ops', description: 'Health and metrics' },
      ],
      webhooks: {
        orderSuccess: {
          post: {
            summary: 'Order success webhook, sent to success_callback_url',
            description: `Sent when an order becomes success; signed like a request (header x-api-key = hex sha256 of "<API_KEY>|<body>" with your current key). Answer HTTP 200 within 10 s; anything else is retried after 15 s, 1 min, 5 min, 15 min and 1 h. Keys in this order, absent ones left out: ${webhookKeys}.`,
            requestBody: {
              content: {
                'application/json': {
                  schema: extras.webhookBody,
                  example: {
                    id: 'lux01993328-a828-7581-b3a9-e712a6a0e88c',
                    order_id: 'order-1',
                    type: 'sim',
                    amount: '1001',
                    currency: 'RUB',
                    status: 'success',
                    created_at: '2026-11-20 23:38:18.892',
                    amountAfterFee: 975.98,
                  },
                },
              },
            },
            responses: { '200': { description: 'Acknowledged' } },
          },
        },
        ...eventWebhooks(extras.events),
      },
    } as FastifyDynamicSwaggerOptions['openapi'],
    transform: ({ schema, url, route }) => {
      // Server-rendered pages (console, portal) are browser pages, not API operations.
      if (/^\/(backoffice|portal|form\/assets|docs)/.test(url)) {
        return { schema: { ...(schema ?? {}), hide: true }, url };
      }
      const security = SECURITY.find(([re]) => re.test(url))?.[1];
      const method = (Array.isArray(route.method) ? route.method[0] : route.method) as string;
      const path = url.replace(/:(\w+)/g, '{$1}');
      const example = EXAMPLES[`${method} ${path}`];
      const out: Record<string, unknown> = { ...(schema ?? {}) };
      out.operationId ??= operationIdOf(method, path);
      if (security) out.security = security;
      if (example?.body && out.body) out.body = { ...(out.body as object), examples: [example.body] };
      if (example && out.response) {
        const response = { ...(out.response as Record<string, object>) };
        if (response['200']) response['200'] = { ...response['200'], examples: [example.response] };
        out.response = response;
      }
      return { schema: out, url };
    },
  };
}
