/** Operator roles (docs/decisions.md section 20). */
export const ROLES = ['admin', 'support', 'payouts', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** What an admin-API route or console page needs. */
export type Permission =
  | 'orders.read'
  | 'orders.manage'
  | 'receipts.moderate'
  | 'payouts.read'
  | 'payouts.manage'
  | 'merchants.read'
  | 'merchants.manage'
  | 'pool.read'
  | 'pool.manage'
  | 'audit.read'
  | 'operators.manage';

/**
 * Role -> permissions (docs/decisions.md section 20): admin does everything; support works orders and moderates receipts;
 * payouts works the payout queue; viewer reads. A support operator cannot open merchants.
 */
export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  admin: new Set<Permission>([
    'orders.read',
    'orders.manage',
    'receipts.moderate',
    'payouts.read',
    'payouts.manage',
    'merchants.read',
    'merchants.manage',
    'pool.read',
    'pool.manage',
    'audit.read',
    'operators.manage',
  ]),
  support: new Set<Permission>(['orders.read', 'orders.manage', 'receipts.moderate']),
  payouts: new Set<Permission>(['orders.read', 'payouts.read', 'payouts.manage']),
  viewer: new Set<Permission>(['orders.read', 'payouts.read', 'merchants.read', 'pool.read', 'audit.read']),
};

export function can(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].has(permission);
}

/**
 * The permissions an admin-API request may use (any one is enough), from its route and method. Deny by
 * default: a route not listed needs `operators.manage`, which only admins have.
 */
export function permissionForAdminRoute(method: string, url: string): Permission[] {
  return [...permissionsFor(method, url)];
}

function permissionsFor(method: string, url: string): Permission[] {
  const write = method !== 'GET' && method !== 'HEAD';
  const path = url.replace(/^\/admin\//, '');
  const first = path.split('/')[0] ?? '';
  // Confirm/cancel serve both queues: the order's kind decides (orders service), either role may ask.
  if (first === 'orders' && write) return ['orders.manage', 'payouts.manage'];
  // Learned bank-message rules: proposing (`POST /admin/bank-rules`) needs what assigning a message
  // needs; anything else written there (switching a rule on or off) is the admins'
  // (docs/decisions.md "Rules learned from the review queue").
  if (first === 'bank-rules' && write)
    return [/^bank-rules\/?(?:\?|$)/.test(path) ? 'orders.manage' : 'pool.manage'];
  return [permissionOf(first, write)];
}

function permissionOf(first: string, write: boolean): Permission {
  switch (first) {
    case 'orders':
      return 'orders.read';
    case 'webhooks':
    case 'appeals':
      return write ? 'orders.manage' : 'orders.read';
    case 'receipts':
      return write ? 'receipts.moderate' : 'orders.read';
    case 'payouts':
      return write ? 'payouts.manage' : 'payouts.read';
    case 'merchants':
      return write ? 'merchants.manage' : 'merchants.read';
    case 'notifications':
    case 'device-events':
    case 'bank-rules':
      return write ? 'orders.manage' : 'orders.read';
    case 'requisites':
    case 'rates':
    case 'crypto':
    case 'chains':
    case 'banks':
    case 'pool':
    case 'holders':
    case 'devices':
      return write ? 'pool.manage' : 'pool.read';
    case 'audit':
      return 'audit.read';
    default:
      return 'operators.manage';
  }
}
