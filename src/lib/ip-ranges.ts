import ipaddr from 'ipaddr.js';
import { invalidField } from './errors.js';

/**
 * An operator's IP allowlist (docs/decisions.md section 32): each entry an address or a CIDR range, IPv4 or IPv6,
 * normalised (`10.0.0.0/8`, `2001:db8::/32`, a lone address as itself). At most 50 entries.
 * Throws VALIDATION_ERROR naming `field` for anything else.
 */
export function parseIpRanges(entries: readonly string[], field = 'ip_allowlist'): string[] {
  if (entries.length > 50) throw invalidField(field, 'at most 50 entries');
  return entries.map((raw) => {
    const entry = raw.trim();
    // ipaddr.js also reads the old shorthand forms (`1.2.3`): an operator means four parts.
    const ip = entry.split('/')[0] ?? '';
    if (!ip.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(ip))
      throw invalidField(field, `not an IP address or CIDR range: "${entry.slice(0, 60)}"`);
    try {
      if (entry.includes('/')) {
        const [ip, bits] = ipaddr.parseCIDR(entry);
        return `${ip.toString()}/${bits}`;
      }
      return ipaddr.parse(entry).toString();
    } catch {
      throw invalidField(field, `not an IP address or CIDR range: "${entry.slice(0, 60)}"`);
    }
  });
}

/**
 * Whether `ip` (as Fastify gives it, IPv4-mapped IPv6 included) is in `entries` (already parsed by
 * `parseIpRanges`); an empty list allows every address.
 */
export function ipAllowed(entries: readonly string[], ip: string): boolean {
  if (entries.length === 0) return true;
  if (!ipaddr.isValid(ip)) return false;
  let address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    address = (address as ipaddr.IPv6).toIPv4Address();
  return entries.some((entry) => {
    const [base, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.parse(entry), -1];
    if (base.kind() !== address.kind()) return false;
    return bits === -1 ? base.toString() === address.toString() : address.match([base, bits] as never);
  });
}
